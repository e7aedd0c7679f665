//go:build integration

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/buildcache"
	"github.com/gatehouse-dev/gatehouse/backend/fulldisk"
)

// nativeSandboxes are the backends these tests run real work under.
var nativeSandboxes = []string{"bwrap", "landlock"}

// startConfigured runs a daemon whose config file holds cfg (the
// [sandbox] table and more) and whose policy allows the named binaries.
func startConfigured(t *testing.T, cfg string, allow []string, env []string) *clitest.Daemon {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "config.toml", cfg)
	var pol strings.Builder
	for i, b := range allow {
		fmt.Fprintf(&pol, "[[rule]]\nid = \"test-allow-%d\"\naction = \"allow\"\ntool = \"run_command\"\nbinary = %q\nreason = \"test\"\n\n", i, b)
	}
	clitest.WriteConfig(t, ws, "policy.toml", pol.String())
	return clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, env)
}

func must(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// runCmd is a run_command call that may take a while (a cold build).
func runCmd(t *testing.T, s *mcp.ClientSession, argv ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": argv, "timeout_s": 600}})
	if err != nil {
		t.Fatalf("run_command %v: %v", argv, err)
	}
	return clitest.Text(t, r), r.IsError
}

// goModule writes a small module that needs a dependency from the host's
// module cache (one this repository builds with), with its go.sum.
func goModule(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-json", "golang.org/x/sys")
	cmd.Dir = clitest.RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var mod struct{ Version string }
	must(t, json.Unmarshal(out, &mod))
	sums, err := os.ReadFile(filepath.Join(clitest.RepoRoot(), "go.sum"))
	must(t, err)
	var sum strings.Builder
	for _, l := range strings.Split(string(sums), "\n") {
		if strings.HasPrefix(l, "golang.org/x/sys "+mod.Version) {
			sum.WriteString(l + "\n")
		}
	}
	files := map[string]string{
		"go.mod":    "module example.test/small\n\ngo 1.26.0\n\nrequire golang.org/x/sys " + mod.Version + "\n",
		"go.sum":    sum.String(),
		"small.go":  "package small\n\nimport \"golang.org/x/sys/unix\"\n\n// Pid is this process's id.\nfunc Pid() int { return unix.Getpid() }\n",
		"s_test.go": "package small\n\nimport \"testing\"\n\nfunc TestPid(t *testing.T) {\n\tif Pid() <= 0 {\n\t\tt.Fatal(\"no pid\")\n\t}\n}\n",
	}
	for name, body := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
}

// Go on the person's PATH (outside the system PATH: /usr/local/go/bin)
// runs in the sandbox; the second `go test` of a module hits the
// workspace's build cache; its dependency comes from the host's module
// cache, with no network.
func TestGoTestTwiceHitsTheCache(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go must be on PATH for this test: %v", err)
	}
	for _, backend := range nativeSandboxes {
		t.Run(backend, func(t *testing.T) {
			d := startConfigured(t, "[sandbox]\nbackend = \""+backend+"\"\n", nil, nil)
			goModule(t, d.Workspace)
			s := d.MCP(t.Context(), "go-test")
			first, isErr := runCmd(t, s, "go", "test", "-v", "./...")
			if isErr || !strings.Contains(first, "--- PASS: TestPid") {
				t.Fatalf("first go test:\n%s", first)
			}
			second, isErr := runCmd(t, s, "go", "test", "-v", "./...")
			if isErr || !strings.Contains(second, "(cached)") {
				t.Fatalf("second go test did not hit the cache:\n%s", second)
			}
			root := filepath.Join(d.Data, "cache", buildcache.RootName(d.Workspace))
			if ents, _ := os.ReadDir(filepath.Join(root, buildcache.GoBuild)); len(ents) < 16 {
				t.Errorf("GOCACHE in %s holds %d entries", root, len(ents))
			}
			if m, _ := filepath.Glob(filepath.Join(root, buildcache.GoMod, "golang.org", "x", "sys@*")); len(m) == 0 {
				t.Errorf("the dependency was not fetched into the sandbox's module cache")
			}

			// The cache shows in the control API and the CLI, and clears.
			out, _, code := d.CLI(t.Context(), "cache", "--json")
			var u buildcache.Usage
			if code != 0 || json.Unmarshal([]byte(out), &u) != nil || u.Bytes < 1<<20 || len(u.Workspaces) != 1 || u.Workspaces[0].Workspace != d.Workspace {
				t.Fatalf("gatehouse cache: %d %s", code, out)
			}
			if out, errOut, code := d.CLI(t.Context(), "cache", "clear", "--workspace", d.Workspace); code != 0 || !strings.Contains(out, "Cleared") {
				t.Fatalf("cache clear: %d %s %s", code, out, errOut)
			}
			out, _, _ = d.CLI(t.Context(), "cache", "--json")
			if json.Unmarshal([]byte(out), &u) != nil || u.Bytes > 1<<20 {
				t.Errorf("after clear: %s", out)
			}
		})
	}
}

// fakeHome is a home with a toolchain outside every system dir and the
// secrets a home holds.
func fakeHome(t *testing.T) (home, secret string) {
	home = t.TempDir()
	home, _ = filepath.EvalSymlinks(home)
	secret = "gatehouse-test-secret-" + fmt.Sprint(time.Now().UnixNano())
	for _, d := range []string{".cargo/bin", ".rustup/toolchains/stable", ".ssh", "shared/bin"} {
		must(t, os.MkdirAll(filepath.Join(home, d), 0o755))
	}
	must(t, os.Chmod(filepath.Join(home, "shared", "bin"), 0o777))
	must(t, os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte(secret), 0o600))
	must(t, os.WriteFile(filepath.Join(home, ".rustup", "toolchains", "stable", "VERSION"), []byte("1.99-fake\n"), 0o644))
	tool := fmt.Sprintf(`#!/bin/sh
echo "faketool runs from $0"
cat %[1]s/.rustup/toolchains/stable/VERSION
cat %[1]s/.ssh/id_test 2>/dev/null || echo "ssh secret unreadable"
ls %[1]s/.ssh >/dev/null 2>&1 || echo "ssh dir unlistable"
touch %[1]s/.cargo/bin/planted 2>/dev/null && echo "toolchain writable"
exit 0
`, home)
	must(t, os.WriteFile(filepath.Join(home, ".cargo", "bin", "faketool"), []byte(tool), 0o755))
	return home, secret
}

// A toolchain in a PATH dir under $HOME runs in every native sandbox,
// read-only, beside the runtime its bin needs (~/.rustup), while ~/.ssh
// in that home stays unreadable. A world-writable PATH dir is refused
// at start, and a missing command names the setting that adds one.
func TestToolchainOutsideSystemDirs(t *testing.T) {
	for _, backend := range nativeSandboxes {
		t.Run(backend, func(t *testing.T) {
			home, secret := fakeHome(t)
			env := []string{"HOME=" + home, "PATH=" + home + "/.cargo/bin:" + home + "/shared/bin:/usr/bin:/bin"}
			d := startConfigured(t, "[sandbox]\nbackend = \""+backend+"\"\n", []string{filepath.Join(home, ".cargo", "bin", "faketool")}, env)
			if !strings.Contains(d.Log(), "shared/bin is not shown to sandboxes") || !strings.Contains(d.Log(), "writable by every user") {
				t.Errorf("no note about the world-writable PATH entry:\n%s", d.Log())
			}
			s := d.MCP(t.Context(), "toolchain")
			out, isErr := runCmd(t, s, "faketool")
			if isErr || !strings.Contains(out, "faketool runs from "+home+"/.cargo/bin/faketool") || !strings.Contains(out, "1.99-fake") {
				t.Fatalf("faketool:\n%s", out)
			}
			if strings.Contains(out, secret) || !strings.Contains(out, "ssh secret unreadable") || !strings.Contains(out, "ssh dir unlistable") {
				t.Errorf("~/.ssh was visible:\n%s", out)
			}
			if strings.Contains(out, "toolchain writable") {
				t.Errorf("the toolchain dir was writable:\n%s", out)
			}
			out, isErr = runCmd(t, s, "gatehouse-no-such-tool")
			if !isErr || !strings.Contains(out, "[sandbox] path in ") || !strings.Contains(out, "config.toml") {
				t.Errorf("command not found says:\n%s", out)
			}
		})
	}
}

// A read_only entry that would show a secret stops the daemon at start
// with a sentence naming it.
func TestReadOnlySecretRefused(t *testing.T) {
	home, _ := fakeHome(t)
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	must(t, os.MkdirAll(ws, 0o755))
	clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nread_only = [\"~\"]\n")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Dir(clitest.ConfigDir(ws)))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, errOut, code := clitest.Run(ctx, t, clitest.Binary(t), env, "serve", "--listen", "127.0.0.1:0", "--data", filepath.Join(base, "data"), "--workspace", ws)
	if code == 0 || !strings.Contains(errOut, "read_only entry "+home+" would show sandboxes "+home+"/.ssh") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
}

// A full cache disk: the failing command's output says so, the next
// command first evicts the least recently used entries and runs, and
// when nothing is left to evict the call fails with a sentence saying
// what to do, never a cryptic failed build.
func TestCacheDiskFull(t *testing.T) {
	base := t.TempDir()
	cacheDir := filepath.Join(base, "data", "cache")
	must(t, os.MkdirAll(cacheDir, 0o700))
	fulldisk.Mount(t, cacheDir, "size=32m")
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nbackend = \"bwrap\"\n")
	clitest.WriteConfig(t, ws, "policy.toml", allowShellPolicy)
	// An empty home: the host's own package caches would be linked into
	// the cache first, and whichever of them is older than the filler
	// would be evicted in its place, so what is evicted would depend on
	// this machine's npm cache.
	home := filepath.Join(base, "home")
	must(t, os.Mkdir(home, 0o700))
	d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"HOME=" + home})
	s := d.MCP(t.Context(), "disk-full")

	out, isErr := runCmd(t, s, "sh", "-c", `head -c 40000000 /dev/zero > "$XDG_CACHE_HOME/big"`)
	if !isErr || !strings.Contains(out, "ran out of disk space") || !strings.Contains(out, "gatehouse cache clear") {
		t.Fatalf("a command that filled the cache's disk says:\n%s", out)
	}
	big := filepath.Join(cacheDir, buildcache.RootName(d.Workspace), buildcache.XDG, "big")
	if out, isErr := runCmd(t, s, "true"); isErr {
		t.Fatalf("the next command did not get room:\n%s", out)
	}
	if _, err := os.Lstat(big); err == nil {
		t.Fatal("the least recently used entry was not evicted")
	}

	// Something that is not the cache's fills the disk: nothing to evict.
	fulldisk.Fill(filepath.Join(cacheDir, "filler"), 64)
	out, isErr = runCmd(t, s, "true")
	if !isErr || !strings.Contains(out, "build cache") || !strings.Contains(out, "free space on that disk") {
		t.Fatalf("a full cache disk says:\n%s", out)
	}
	os.Remove(filepath.Join(cacheDir, "filler"))
	if out, isErr := runCmd(t, s, "true"); isErr {
		t.Fatalf("after freeing space:\n%s", out)
	}
}

// npm cannot read a second cache, so the host's _cacache is linked into
// the workspace's root: a lockfile install that works offline on the
// host (make test's `npm ci` for the web UI fills the host's cache) works
// offline in the sandbox, which has no network at all.
func TestNpmOfflineFromHostCache(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is needed for this test: %v", err)
	}
	// The policy names the program as PATH finds it, link or not.
	d := startConfigured(t, "[sandbox]\nbackend = \"bwrap\"\n", []string{npm}, nil)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(clitest.RepoRoot(), "frontend", f))
		must(t, err, os.WriteFile(filepath.Join(d.Workspace, f), b, 0o644))
	}
	s := d.MCP(t.Context(), "npm")
	out, isErr := runCmd(t, s, "npm", "ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund")
	if isErr || !strings.Contains(out, "added ") {
		// Only a fault of ours if the host itself can do it offline.
		host := t.TempDir()
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, _ := os.ReadFile(filepath.Join(d.Workspace, f))
			must(t, os.WriteFile(filepath.Join(host, f), b, 0o644))
		}
		cmd := exec.Command(npm, "ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund")
		cmd.Dir = host
		if hostOut, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the host's npm cache lacks the web UI's packages (run `npm ci` in frontend/ first): %v\n%s", err, hostOut)
		}
		t.Fatalf("offline npm ci works on the host but not in the sandbox:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "node_modules", "preact")); err != nil {
		t.Errorf("node_modules lacks preact after the install: %v", err)
	}
}

// cargo through rustup's proxy in ~/.cargo/bin: CARGO_HOME is in the
// workspace's cache root while ~/.cargo/bin stays on PATH read-only and
// the toolchain comes from ~/.rustup (RUSTUP_HOME), so a crate builds.
func TestCargoBuildsInSandbox(t *testing.T) {
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skipf("cargo is not installed here (make test does not install Rust): %v", err)
	}
	for _, backend := range nativeSandboxes {
		t.Run(backend, func(t *testing.T) {
			d := startConfigured(t, "[sandbox]\nbackend = \""+backend+"\"\n", []string{cargo}, nil)
			must(t, os.MkdirAll(filepath.Join(d.Workspace, "src"), 0o755),
				// Landlock keeps the workspace root uncreatable: what cargo
				// makes there exists already.
				os.MkdirAll(filepath.Join(d.Workspace, "target"), 0o755),
				os.WriteFile(filepath.Join(d.Workspace, "Cargo.lock"), []byte("version = 3\n\n[[package]]\nname = \"small\"\nversion = \"0.1.0\"\n"), 0o644),
				os.WriteFile(filepath.Join(d.Workspace, "Cargo.toml"), []byte("[package]\nname = \"small\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"), 0o644),
				os.WriteFile(filepath.Join(d.Workspace, "src", "main.rs"), []byte("fn main() { println!(\"built in the sandbox\"); }\n"), 0o644))
			s := d.MCP(t.Context(), "cargo")
			out, isErr := runCmd(t, s, "cargo", "run", "--offline", "-q")
			if isErr || !strings.Contains(out, "built in the sandbox") {
				t.Fatalf("cargo run:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(d.Data, "cache", buildcache.RootName(d.Workspace), buildcache.Cargo)); err != nil {
				t.Errorf("CARGO_HOME not in the cache root: %v", err)
			}
		})
	}
}

// linkOrCopy puts the file src at dst, executable.
func linkOrCopy(t *testing.T, src, dst string) {
	t.Helper()
	if os.Link(src, dst) == nil {
		return
	}
	b, err := os.ReadFile(src)
	must(t, err)
	must(t, os.WriteFile(dst, b, 0o755))
}

// With gatehouse on PATH through an install symlink (a prefix's bin/
// holding links into a checkout's bin/, as `make install` makes), a
// sandboxed command sees neither the Gatehouse checkout (its sources, its
// bin/, its .cache) nor the prefix around that bin/; only the links. The
// daemon's status says what it shows, and it names no part of the
// checkout.
func TestSandboxCannotListGatehouseCheckoutThroughPathLink(t *testing.T) {
	for _, backend := range nativeSandboxes {
		t.Run(backend, func(t *testing.T) {
			base := t.TempDir()
			checkout := filepath.Join(base, "src", "gatehouse")
			prefix := filepath.Join(base, "prefix")
			for _, dir := range []string{filepath.Join(checkout, "bin"), filepath.Join(checkout, ".git"), filepath.Join(checkout, ".cache", "node22", "bin"), filepath.Join(prefix, "bin"), filepath.Join(prefix, "share")} {
				must(t, os.MkdirAll(dir, 0o755))
			}
			must(t, os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module github.com/gatehouse-dev/gatehouse\n\ngo 1.26.0\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(checkout, ".cache", "node22", "bin", "node"), []byte("#!/bin/sh\n"), 0o755))
			built := clitest.Binary(t)
			// A program of the person's own, linked from the same PATH dir:
			// it runs, shown alone, and the files beside it are not.
			lone := filepath.Join(base, "elsewhere", "bin")
			must(t, os.MkdirAll(lone, 0o755))
			must(t, os.WriteFile(filepath.Join(lone, "hello-tool"), []byte("#!/bin/sh\necho hello from the linked tool\n"), 0o755))
			must(t, os.WriteFile(filepath.Join(lone, "beside"), []byte("not for sandboxes\n"), 0o644))
			must(t, os.Symlink(filepath.Join(lone, "hello-tool"), filepath.Join(prefix, "bin", "hello-tool")))
			for _, name := range []string{"gatehouse", "gatehouse-sandbox-init"} {
				linkOrCopy(t, filepath.Join(filepath.Dir(built), name), filepath.Join(checkout, "bin", name))
				must(t, os.Symlink(filepath.Join(checkout, "bin", name), filepath.Join(prefix, "bin", name)))
			}
			ws := filepath.Join(base, "ws")
			must(t, os.MkdirAll(ws, 0o755))
			clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nbackend = \""+backend+"\"\n")
			// The person runs the gatehouse on their PATH: the link.
			path := filepath.Join(prefix, "bin") + string(os.PathListSeparator) + filepath.Join(checkout, ".cache", "node22", "bin") + string(os.PathListSeparator) + os.Getenv("PATH")
			d := clitest.Attach(t, &clitest.Daemon{
				Bin: filepath.Join(prefix, "bin", "gatehouse"), Data: filepath.Join(base, "data"), Workspace: ws,
				Args:     []string{"serve", "--listen", "127.0.0.1:0", "--data", filepath.Join(base, "data"), "--workspace", ws},
				ExtraEnv: []string{"PATH=" + path},
			})
			d.Restart()
			t.Cleanup(d.Stop)

			// Directories are listed, the file read (Landlock, like any
			// Linux sandbox short of a mount namespace, lets a path be
			// stat'ed, never read).
			probe := "for p in " + checkout + " " + filepath.Join(checkout, "bin") + " " +
				filepath.Join(checkout, ".cache") + " " + filepath.Join(prefix, "share") + "; do\n" +
				"  if ls \"$p\" >/dev/null 2>&1; then echo \"VISIBLE $p\"; else echo \"hidden $p\"; fi\ndone\n" +
				"if cat " + filepath.Join(checkout, "go.mod") + " >/dev/null 2>&1; then echo VISIBLE go.mod; else echo hidden go.mod; fi\n" +
				"if cat " + filepath.Join(lone, "beside") + " >/dev/null 2>&1; then echo VISIBLE beside; else echo hidden beside; fi\n" +
				"hello-tool\n" +
				"ls " + filepath.Join(prefix, "bin") + "\n"
			must(t, os.WriteFile(filepath.Join(ws, "probe.sh"), []byte(probe), 0o644))
			s := d.MCP(t.Context(), "checkout-probe")
			out, isErr := runCmd(t, s, "sh", "probe.sh")
			if isErr || strings.Contains(out, "VISIBLE") || !strings.Contains(out, "hidden "+checkout) {
				t.Fatalf("a sandboxed command sees Gatehouse's checkout or the prefix (error %v):\n%s", isErr, out)
			}
			if !strings.Contains(out, "hello from the linked tool") {
				t.Errorf("a program linked from a PATH dir does not run in the sandbox:\n%s", out)
			}
			if !strings.Contains(out, "gatehouse-sandbox-init") {
				t.Errorf("the PATH directory's links are not listed:\n%s", out)
			}

			_, body := d.Request("GET", "/api/v1/status", nil, d.Control())
			var st struct {
				Toolchains struct {
					Path     []string `json:"path"`
					ReadOnly []string `json:"read_only"`
					Notes    []string `json:"notes"`
				} `json:"toolchains"`
			}
			must(t, json.Unmarshal([]byte(body), &st))
			realCheckout, _ := filepath.EvalSymlinks(checkout)
			for _, ro := range st.Toolchains.ReadOnly {
				if strings.HasPrefix(ro+"/", realCheckout+"/") || strings.HasPrefix(ro+"/", checkout+"/") {
					t.Errorf("the daemon shows %s, inside the checkout: %v", ro, st.Toolchains.ReadOnly)
				}
			}
			if len(st.Toolchains.Path) == 0 || !strings.Contains(strings.Join(st.Toolchains.Notes, "\n"), "Gatehouse's own checkout") {
				t.Errorf("status toolchains %+v: want the PATH and a note that the checkout's Node is not shown", st.Toolchains)
			}
		})
	}
}

// gatehouse doctor checks the toolchains the running daemon shows its
// sandboxes (its PATH), not its own shell's.
func TestDoctorChecksTheRunningDaemonsToolchains(t *testing.T) {
	base := t.TempDir()
	tools := filepath.Join(base, "mytools", "bin")
	must(t, os.MkdirAll(tools, 0o755))
	must(t, os.WriteFile(filepath.Join(tools, "daemon-only-tool"), []byte("#!/bin/sh\n"), 0o755))
	ws := filepath.Join(base, "ws")
	d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH")})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	// The doctor's own PATH lacks the daemon's tools dir.
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Dir(clitest.ConfigDir(ws)))
	out, errOut, code := clitest.Run(ctx, t, d.Bin, env, "--data", d.Data, "doctor", "--backend", "landlock")
	if code != 0 {
		t.Fatalf("doctor: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "checking the toolchains the running daemon (pid") {
		t.Errorf("doctor does not say it checks the daemon's toolchains:\n%s", errOut)
	}
	if !strings.Contains(out, "daemon-only-tool") {
		t.Errorf("the toolchain row does not check the daemon's PATH (daemon-only-tool):\n%s", out)
	}
}
