package protect

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExposure(t *testing.T) {
	e, err := ParseExposure([]string{".env.test", "config/dev.key", "testdata/", "fixtures/*/certs/"})
	must(t, err)
	for rel, want := range map[string]bool{
		".env.test": true, "sub/.env.test": true, ".env": false,
		"config/dev.key": true, "other/config/dev.key": false,
		"testdata/server.pem": true, "testdata/a/b.key": true, "src/testdata/x.pem": false,
		"fixtures/one/certs/x.pem": true, "fixtures/certs/x.pem": false,
	} {
		if got := e.Exposes(rel); got != want {
			t.Errorf("Exposes(%s) = %v, want %v", rel, got, want)
		}
	}
	for _, bad := range []string{"", "/etc/x", "../x", "a/../b", "a//b", "[", " x", "a\\b"} {
		if _, err := ParseExposure([]string{bad}); !errors.Is(err, ErrBadExposure) {
			t.Errorf("ParseExposure(%q) = %v, want ErrBadExposure", bad, err)
		}
	}
}

func TestFinder(t *testing.T) {
	ws := t.TempDir()
	files(t, ws, map[string]string{
		".env": "K=v", ".env.example": "K=", "app/config/prod.pem": "x", "app/main.go": "",
		"node_modules/pkg/test.key": "", ".git/hooks/id_rsa": "", "lib/python3/site-packages/certifi/cacert.pem": "",
		"keys/real.env": "K=v", "testdata/fixture.key": "",
	})
	must(t, os.Symlink("keys/real.env", filepath.Join(ws, ".env.local")))
	must(t, os.Symlink(t.TempDir(), filepath.Join(ws, ".env.outside")))
	f := &Finder{}
	e, _ := ParseExposure([]string{"testdata/"})
	got, err := f.Find(ws, e)
	must(t, err)
	want := []string{".env", "app/config/prod.pem", "keys/real.env"}
	var rel []string
	for _, p := range got.Files {
		r, _ := filepath.Rel(ws, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	if !slices.Equal(rel, want) {
		t.Fatalf("found %v, want %v", rel, want)
	}

	// Unchanged, the second walk lists nothing anew.
	backdate(t, ws)
	f2 := &Finder{}
	_, _ = f2.Find(ws, e)
	again, err := f2.Find(ws, e)
	must(t, err)
	if again.Listed != 0 || again.Walked == 0 {
		t.Fatalf("second walk listed %d of %d directories", again.Listed, again.Walked)
	}
	// A new secret in an unchanged-looking tree is found: its directory's
	// mtime moved.
	must(t, os.WriteFile(filepath.Join(ws, "app", "config", ".env.prod"), nil, 0o600))
	third, err := f2.Find(ws, e)
	must(t, err)
	if third.Listed != 1 || !slices.Contains(third.Files, filepath.Join(ws, "app", "config", ".env.prod")) {
		t.Fatalf("new secret: listed %d, files %v", third.Listed, third.Files)
	}

	// A directory that cannot be listed is hidden whole.
	if os.Geteuid() != 0 {
		locked := filepath.Join(ws, "locked")
		must(t, os.Mkdir(locked, 0o755), os.WriteFile(filepath.Join(locked, ".env"), nil, 0o600), os.Chmod(locked, 0))
		defer os.Chmod(locked, 0o755)
		got, err := f.Find(ws, e)
		must(t, err)
		if !slices.Contains(got.Dirs, locked) {
			t.Fatalf("unlistable directory not hidden: %v", got.Dirs)
		}
	}
}

// backdate moves every directory's mtime out of the racy window, as if
// the tree had been made a while ago.
func backdate(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	must(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}

func TestScanHiddenParents(t *testing.T) {
	ws := t.TempDir()
	files(t, ws, map[string]string{".env": "", "a/b/c.key": "", "a/d.pem": ""})
	files(t, ws, gitDirLayout(".git", ""))
	w, err := Scan(ws, Exposure{})
	must(t, err)
	want := []string{filepath.Join(ws, "a"), filepath.Join(ws, "a", "b")}
	if got := w.HiddenParents(); !slices.Equal(got, want) {
		t.Fatalf("parents %v, want %v", got, want)
	}
}

func TestPublicPEM(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		content string
		public  bool
	}{
		"ca.pem":     {"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", true},
		"key.pem":    {"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", false},
		"both.pem":   {"-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n-----BEGIN RSA PRIVATE KEY-----\ny\n-----END RSA PRIVATE KEY-----\n", false},
		"ssh.pem":    {"-----BEGIN OPENSSH PRIVATE KEY-----\nz\n-----END OPENSSH PRIVATE KEY-----\n", false},
		"binary.pem": {"\x30\x82\x01", false},
		"cert.key":   {"-----BEGIN CERTIFICATE-----\n", false},
	}
	for name, c := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.content), 0o600)
		if got := publicPEM(p); got != c.public {
			t.Errorf("%s: public = %v, want %v", name, got, c.public)
		}
	}
}

func TestScanProtectedParents(t *testing.T) {
	ws := t.TempDir()
	files(t, ws, gitDirLayout(".git", ""))
	files(t, ws, map[string]string{".config/x": ""})
	w, err := Scan(ws, Exposure{})
	must(t, err)
	got := w.ProtectedParents()
	if !slices.Contains(got, filepath.Join(ws, ".git")) || slices.Contains(got, ws) {
		t.Fatalf("parents %v: want .git, and not the root", got)
	}
	for _, p := range got {
		if !strings.HasPrefix(p, ws+string(filepath.Separator)) {
			t.Errorf("%s is outside the workspace", p)
		}
	}
}
