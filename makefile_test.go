package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// makeTree is a copy of the Makefile in a scratch tree whose tools (the
// deps script, npm, go) only record what they were asked to do, so the
// test sees which steps a make runs.
type makeTree struct {
	t     *testing.T
	dir   string
	calls string
	env   []string
}

func newMakeTree(t *testing.T) *makeTree {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed (apt-get install -y make)")
	}
	m := &makeTree{t: t, dir: t.TempDir()}
	m.calls = filepath.Join(m.dir, "calls")
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join(m.dir, "tools")
	files := map[string]string{
		"Makefile":                     string(mk),
		"scripts/deps.sh":              "#!/bin/sh\n",
		"scripts/onpath.sh":            "#!/bin/sh\n",
		"go.mod":                       "module example\n",
		"go.sum":                       "",
		"main.go":                      "package main\n",
		"main_test.go":                 "package main\n",
		"sandbox/cmd/init/main.go":     "package main\n",
		"frontend/package.json":        "{}\n",
		"frontend/package-lock.json":   "{}\n",
		"frontend/index.html":          "<html></html>\n",
		"frontend/vite.config.ts":      "\n",
		"frontend/tsconfig.json":       "{}\n",
		"frontend/src/main.ts":         "\n",
		"frontend/dist/.gitkeep":       "",
		"tools/npm":                    "#!/bin/sh\necho \"npm $*\" >> " + m.calls + "\n[ \"$1\" = run ] && echo built > dist/index.html\nexit 0\n",
		"tools/go":                     "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\necho \"go build $out\" >> " + m.calls + "\nprintf '#!/bin/sh\\necho \"PATH=$PATH\"\\n' > $out\nchmod +x $out\n",
		"tools/git":                    "#!/bin/sh\nexit 1\n",
		"frontend/node_modules/.keep":  "",
		"sandbox/cmd/init/helper_x.go": "package main\n",
	}
	for name, body := range files {
		p := filepath.Join(m.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	m.env = append(os.Environ(), "PATH="+tools+":/usr/bin:/bin", "GO="+filepath.Join(tools, "go"), "MAKEFLAGS=", "MAKELEVEL=")
	return m
}

// age touches name: it is now newer than what make built from it.
func (m *makeTree) age(name string) {
	m.t.Helper()
	now := time.Now()
	if err := os.Chtimes(filepath.Join(m.dir, name), now, now); err != nil {
		m.t.Fatal(err)
	}
}

// make runs make with args and returns the steps it ran.
func (m *makeTree) make(args ...string) []string {
	m.t.Helper()
	os.Remove(m.calls)
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir, cmd.Env = m.dir, m.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		m.t.Fatalf("make %v: %v\n%s", args, err, out)
	}
	b, _ := os.ReadFile(m.calls)
	var steps []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			steps = append(steps, l)
		}
	}
	return steps
}

// TestMakeBuildsOnlyWhatChanged: a fresh tree builds everything; after
// that, make build runs only the steps whose inputs changed.
func TestMakeBuildsOnlyWhatChanged(t *testing.T) {
	m := newMakeTree(t)
	all := []string{"go build bin/gatehouse", "go build bin/gatehouse-desktop", "go build bin/gatehouse-sandbox-init"}
	windowAndApp := all[:2]
	tests := []struct {
		name   string
		change func()
		args   []string
		want   []string
	}{
		{"a fresh tree", func() {}, nil, append([]string{"npm ci --no-audit --no-fund --loglevel=error", "npm run build"}, all...)},
		{"nothing changed", func() {}, nil, nil},
		{"a test file", func() { m.age("main_test.go") }, nil, nil},
		{"a UI source", func() { m.age("frontend/src/main.ts") }, nil, append([]string{"npm run build"}, windowAndApp...)},
		{"the lock file touched, not changed", func() { m.age("frontend/package-lock.json") }, nil, nil},
		{"a Go source", func() { m.age("main.go") }, nil, all},
		{"a new version", func() {}, []string{"VERSION=v2"}, windowAndApp},
		{"the binaries removed", func() { os.RemoveAll(filepath.Join(m.dir, "bin")) }, []string{"VERSION=v2"}, all},
	}
	for _, tt := range tests {
		tt.change()
		got := m.make(append([]string{"build"}, tt.args...)...)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: make build ran %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestMakeRunHandsOverTheCallersPath: the node and Go the Makefile puts on
// PATH to build are not in the PATH Gatehouse runs with (sandboxes would
// see them as the person's toolchains).
func TestMakeRunHandsOverTheCallersPath(t *testing.T) {
	m := newMakeTree(t)
	m.make("build")
	cmd := exec.Command("make", "--no-print-directory", "run")
	cmd.Dir, cmd.Env = m.dir, m.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make run: %v\n%s", err, out)
	}
	var path string
	for _, l := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(l, "PATH="); ok {
			path = p
		}
	}
	want := filepath.Join(m.dir, "tools") + ":/usr/bin:/bin"
	if st, err := os.Stat("/usr/local/go/bin"); err == nil && st.IsDir() {
		want += ":/usr/local/go/bin" // where the build found Go, after the caller's own
	}
	if path != want || strings.Contains(path, "node22") {
		t.Fatalf("gatehouse ran with PATH=%q, want the caller's, %q\n%s", path, want, out)
	}
}

// TestMakeInstallChecksPath: make install says whether the prefix is on
// the caller's PATH, and what to add when it is not.
func TestMakeInstallChecksPath(t *testing.T) {
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "gatehouse"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, prefix, destdir, shell string
		want                               []string
	}{
		{"on PATH", "/usr/local/bin:/usr/bin", "/usr/local", "", "/bin/bash", []string{"gatehouse is on your PATH, in /usr/local/bin."}},
		{"on PATH with a trailing slash", "/usr/local/bin/:/usr/bin", "/usr/local", "", "/bin/bash", []string{"gatehouse is on your PATH"}},
		{"missing", "/usr/bin:/bin", "/home/me/.local", "", "/bin/bash", []string{
			"/home/me/.local/bin is not on your PATH, so 'gatehouse' will not be found; add this line to ~/.profile (or ~/.bashrc)",
			`export PATH="/home/me/.local/bin:$PATH"`}},
		{"missing, zsh", "/usr/bin", "/opt/gh", "", "/usr/bin/zsh", []string{"add this line to ~/.zshrc", `export PATH="/opt/gh/bin:$PATH"`}},
		{"another gatehouse first", other + ":/usr/local/bin", "/usr/local", "", "/bin/bash", []string{other + "/gatehouse comes before /usr/local/bin on your PATH"}},
		{"a staging root", "/usr/bin", "/usr", "/tmp/stage", "/bin/bash", []string{"Installed into /tmp/stage/usr/bin (a staging root)"}},
	}
	for _, tt := range tests {
		cmd := exec.Command("scripts/onpath.sh", tt.prefix+"/bin")
		cmd.Env = append(os.Environ(), "CHECK_PATH="+tt.path, "DESTDIR="+tt.destdir, "SHELL="+tt.shell)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, out)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: onpath.sh said %q, want %q", tt.name, out, w)
			}
		}
	}
}
