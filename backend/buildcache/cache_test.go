package buildcache

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func writeSized(t *testing.T, p string, n int, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, n), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

// Over its bound the cache drops what was used least recently, a Go
// build-cache entry or XDG entry at a time, whole tool caches otherwise,
// and spares roots a command is using while anything else is left.
func TestEvictLeastRecentlyUsed(t *testing.T) {
	c, err := Open(Options{Dir: t.TempDir(), LimitBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := c.Root("/ws/a")
	b, _ := c.Root("/ws/b")
	writeSized(t, filepath.Join(a, GoBuild, "00", "old"), 400<<10, 3*time.Hour)
	writeSized(t, filepath.Join(a, GoBuild, "01", "new"), 400<<10, time.Minute)
	writeSized(t, filepath.Join(b, XDG, "tool", "blob"), 400<<10, 2*time.Hour)
	// Go makes its module cache read-only; eviction must still remove it.
	mod := filepath.Join(b, GoMod, "example.test", "m@v1.0.0")
	writeSized(t, filepath.Join(mod, "go.mod"), 300<<10, time.Hour)
	if err := os.Chmod(mod, 0o555); err != nil {
		t.Fatal(err)
	}
	end, err := c.Begin(t.Context(), a, false) // a is in use: its old entry waits
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ev.pass(0); err != nil {
		t.Fatal(err)
	}
	end()
	c.Wait()
	gone := func(p string) bool { _, err := os.Lstat(p); return err != nil }
	if !gone(filepath.Join(b, XDG, "tool")) || !gone(mod) {
		t.Error("the idle root's old entries were kept")
	}
	if gone(filepath.Join(a, GoBuild, "01", "new")) {
		t.Error("the newest entry went")
	}
	if st, err := os.Stat(filepath.Join(b, GoMod)); err != nil || !st.IsDir() {
		t.Error("an emptied tool dir must stay")
	}
	u, err := c.Usage()
	if err != nil || u.Bytes > c.LimitBytes() {
		t.Fatalf("usage %+v %v", u, err)
	}
}

func TestClear(t *testing.T) {
	c, _ := Open(Options{Dir: t.TempDir()})
	a, _ := c.Root("/ws/a")
	b, _ := c.Root("/ws/b")
	writeSized(t, filepath.Join(a, GoBuild, "00", "x"), 10, 0)
	writeSized(t, filepath.Join(b, GoBuild, "00", "x"), 10, 0)
	if got, err := c.Clear("/ws/a"); err != nil || !slices.Equal(got, []string{a}) {
		t.Fatalf("clear a: %v %v", got, err)
	}
	if _, err := os.Lstat(filepath.Join(b, GoBuild, "00", "x")); err != nil {
		t.Error("clearing a touched b")
	}
	end, _ := c.Begin(t.Context(), b, false)
	if _, err := c.Clear(""); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("clearing a root in use: %v", err)
	}
	end()
	if _, err := c.Clear(""); err != nil {
		t.Fatal(err)
	}
	u, _ := c.Usage()
	if u.Bytes > 64<<10 {
		t.Errorf("after clear: %+v", u)
	}
}

func TestGoEnv(t *testing.T) {
	tests := []struct {
		name   string
		host   Host
		want   string
		absent bool
	}{
		{"host cache first, then the person's proxies as written", Host{GoDownload: "/h/mod/cache/download", GoEnv: map[string]string{"GOPROXY": "https://proxy.example.test,direct"}}, "GOPROXY=file:///h/mod/cache/download|https://proxy.example.test,direct", false},
		{"credentials never reach the sandbox", Host{GoDownload: "/d", GoEnv: map[string]string{"GOPROXY": "https://u:pw@corp.example.test,direct"}}, "GOPROXY=file:///d|direct", false},
		{"off stays off after the host cache", Host{GoDownload: "/d", GoEnv: map[string]string{"GOPROXY": "off"}}, "GOPROXY=file:///d", false},
		{"settings carried", Host{GoEnv: map[string]string{"GOPRIVATE": "corp.example.test"}}, "GOPRIVATE=corp.example.test", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.host.goEnv()
			if !slices.Contains(env, tc.want) {
				t.Errorf("env %v lacks %s", env, tc.want)
			}
			for _, e := range env {
				if strings.Contains(e, "GOMODCACHE") || strings.Contains(e, "-mod=mod") {
					t.Errorf("env sets %s", e)
				}
			}
		})
	}
}

// The host's npm and cargo caches are linked into a root; a link a
// sandbox left in the root cannot steer those writes outside it.
func TestSeed(t *testing.T) {
	host := t.TempDir()
	content := filepath.Join(host, "npm", "content-v2", "sha512", "ab", "cd", "pkg")
	index := filepath.Join(host, "npm", "index-v5", "12", "34", "bucket")
	crate := filepath.Join(host, "cargo", "cache", "reg-1", "serde-1.0.0.crate")
	for _, p := range []string{content, index, crate} {
		writeSized(t, p, 100, 0)
	}
	c, _ := Open(Options{Dir: t.TempDir(), Host: Host{NpmCache: filepath.Join(host, "npm"), CargoRegistry: filepath.Join(host, "cargo")}})
	root, _ := c.Root("/ws")
	outside := t.TempDir()
	// A sandbox planted a link where seeding will write.
	if err := os.MkdirAll(filepath.Join(root, Npm, "_cacache"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, Npm, "_cacache", "index-v5")); err != nil {
		t.Fatal(err)
	}
	c.o.Host.seed(root, c.log)
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("seeding wrote outside the root: %v", ents)
	}
	if dst, err := os.Readlink(filepath.Join(root, Npm, "_cacache", "content-v2", "sha512", "ab", "cd", "pkg")); err != nil || dst != content {
		t.Errorf("npm content not linked: %q %v", dst, err)
	}
	if dst, err := os.Readlink(filepath.Join(root, Cargo, "registry", "cache", "reg-1", "serde-1.0.0.crate")); err != nil || dst != crate {
		t.Errorf("crate not linked: %q %v", dst, err)
	}
}

// A run that only reads does not wait for the host's caches to be
// linked in; one that may run a package manager does, until its context
// ends.
func TestOnlyReadingRunsSkipTheSeedWait(t *testing.T) {
	c, err := Open(Options{Dir: t.TempDir(), LimitBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	root, _ := c.Root("/ws/a")
	c.mu.Lock()
	c.seeds[root] = make(chan struct{}) // a seeding that never ends
	c.mu.Unlock()

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	end, err := c.Begin(ctx, root, true)
	if err != nil || ctx.Err() != nil {
		t.Fatalf("a reading run waited for the seeding: %v %v", err, ctx.Err())
	}
	end()

	short, cancelShort := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancelShort()
	if end, err := c.Begin(short, root, false); err == nil {
		end()
	}
	if short.Err() == nil {
		t.Fatal("a run that may use the npm cache did not wait for its seeding")
	}
}
