package toolchain

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// fakeHome lays out toolchains the way their installers do.
func fakeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	home, _ = filepath.EvalSymlinks(home)
	dirs := []string{
		".cargo/bin", ".cargo/registry", ".rustup/toolchains/stable/bin",
		".pyenv/shims", ".pyenv/bin", ".pyenv/versions/3.12/bin",
		".nvm/versions/node/v22.1.0/bin", ".local/bin", ".local/share/pipx/venvs/black/bin",
		"go/bin", "sdk/go1.26/bin", "sdk/go1.26/src/runtime", "sdk/go1.26/pkg/tool",
		"opt/tool/bin", "opt/tool/lib", "bin", ".ssh", ".config/gh", "shared/bin",
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".cargo/credentials.toml", ".ssh/id_ed25519", ".netrc"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".local/share/pipx/venvs/black/bin/black"), filepath.Join(home, ".local/bin/black")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".local/share/pipx/venvs/black/bin/black"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".local/share/pipx/venvs/black/pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, "shared/bin"), 0o777); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestFindToolchainsRoots(t *testing.T) {
	home := fakeHome(t)
	h := func(rel string) string { return filepath.Join(home, rel) }
	tests := []struct {
		name     string
		path     []string
		wantRO   []string
		wantEnv  []string
		wantNote string
	}{
		{"cargo bin needs rustup, never all of ~/.cargo", []string{h(".cargo/bin")}, []string{h(".cargo/bin"), h(".rustup")}, []string{"RUSTUP_HOME=" + h(".rustup")}, ""},
		{"pyenv shims need the pyenv root", []string{h(".pyenv/shims"), h(".pyenv/bin")}, []string{h(".pyenv")}, []string{"PYENV_ROOT=" + h(".pyenv")}, ""},
		{"nvm version dir", []string{h(".nvm/versions/node/v22.1.0/bin")}, []string{h(".nvm")}, []string{"NVM_DIR=" + h(".nvm")}, ""},
		{"a Go installation outside the system dirs", []string{h("sdk/go1.26/bin")}, []string{h("sdk/go1.26")}, nil, ""},
		{"an installation's bin needs its parent", []string{h("opt/tool/bin")}, []string{h("opt/tool")}, nil, ""},
		{"~/go/bin alone", []string{h("go/bin")}, []string{h("go/bin")}, nil, ""},
		{"~/bin alone, never $HOME", []string{h("bin")}, []string{h("bin")}, nil, ""},
		{"~/.local/bin alone, plus where its links point", []string{h(".local/bin")}, []string{h(".local/bin"), h(".local/share/pipx/venvs/black")}, nil, ""},
		{"system dirs need nothing", []string{"/usr/bin", "/usr/local/bin"}, nil, nil, ""},
		{"missing entry skipped quietly", []string{h("nope/bin")}, nil, nil, ""},
		{"relative entry skipped", []string{"bin"}, nil, nil, "relative"},
		{"world-writable entry refused", []string{h("shared/bin")}, nil, nil, "writable by every user"},
		{"home itself refused", []string{home}, nil, nil, "would reveal"},
		{"a secret dir refused", []string{h(".ssh")}, nil, nil, "would reveal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc2, err := Find(Options{Path: tc.path, Home: home, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tc2.ReadOnly, tc.wantRO) {
				t.Errorf("read-only %v, want %v", tc2.ReadOnly, tc.wantRO)
			}
			if !slices.Equal(tc2.Env, tc.wantEnv) {
				t.Errorf("env %v, want %v", tc2.Env, tc.wantEnv)
			}
			notes := strings.Join(tc2.Notes, "\n")
			if tc.wantNote == "" && notes != "" || !strings.Contains(notes, tc.wantNote) {
				t.Errorf("notes %q, want %q", notes, tc.wantNote)
			}
			for _, ro := range tc2.ReadOnly {
				if s := sandbox.SecretInside(ro, home); s != "" {
					t.Errorf("%s exposes %s", ro, s)
				}
			}
		})
	}
}

// A PATH entry that leads nowhere is a log line, not a note: the
// person's own shell finds nothing there either.
func TestFindToolchainsSkipsQuietly(t *testing.T) {
	home := fakeHome(t)
	file := filepath.Join(home, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(Options{Path: []string{filepath.Join(home, "nope/bin"), file}, Home: home, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 0 || len(got.Skipped) != 2 {
		t.Errorf("notes %q, skipped %q; want no notes, two skipped", got.Notes, got.Skipped)
	}
}

func TestFindToolchainsPathOrder(t *testing.T) {
	home := fakeHome(t)
	tc, err := Find(Options{
		Path: []string{"/usr/bin", filepath.Join(home, ".cargo/bin"), "/usr/bin"}, Extra: []string{"~/go/bin"}, Home: home,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(home, "go/bin"), "/usr/bin", filepath.Join(home, ".cargo/bin")}
	if !slices.Equal(tc.Path[:3], want) {
		t.Errorf("path %v, want it to start %v", tc.Path, want)
	}
	if !slices.Contains(tc.Path, "/bin") {
		t.Errorf("path %v lacks the system dirs", tc.Path)
	}
}

func TestFindToolchainsReadOnly(t *testing.T) {
	home := fakeHome(t)
	// A service's socket below a directory the person names.
	if err := os.MkdirAll(filepath.Join(home, "svc", "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(home, "svc", "run", "db.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tests := []struct {
		entry   string
		wantErr string
	}{
		{"~/opt/tool", ""},
		{"~", "would show sandboxes " + home},
		{"~/.config", "would show sandboxes " + filepath.Join(home, ".config/gh")},
		{"~/.cargo", "credentials.toml"},
		{"~/.ssh/x", ""}, // does not exist: skipped with a note
		{"relative/dir", "not an absolute path"},
		{"~/svc", "the unix socket " + filepath.Join(home, "svc", "run", "db.sock")},
	}
	for _, tc := range tests {
		t.Run(tc.entry, func(t *testing.T) {
			_, err := Find(Options{ReadOnly: []string{tc.entry}, Home: home})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

// fakeInstall lays out what `make install` leaves: a checkout with its
// binaries in bin/ (and the Makefile's Node under .cache), a prefix whose
// bin/ holds only links to them, a prefix holding a link to an
// installation with its libraries, and one mixing programs and links.
func fakeInstall(t *testing.T) (base string) {
	t.Helper()
	base, _ = filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"src/gatehouse/bin", "src/gatehouse/.git", "src/gatehouse/.cache/node22/bin", "prefix/bin",
		"apps/tool-1.2/bin", "apps/tool-1.2/lib", "links/bin", "mixed/bin", "mixed/lib", "elsewhere/bin"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"src/gatehouse/go.mod", "src/gatehouse/bin/gatehouse", "src/gatehouse/bin/gatehouse-sandbox-init",
		"src/gatehouse/.cache/node22/bin/node", "apps/tool-1.2/bin/tool", "mixed/bin/own", "elsewhere/bin/helper"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"prefix/bin/gatehouse":              "src/gatehouse/bin/gatehouse",
		"prefix/bin/gatehouse-sandbox-init": "src/gatehouse/bin/gatehouse-sandbox-init",
		"links/bin/tool":                    "apps/tool-1.2/bin/tool",
		"links/bin/helper":                  "elsewhere/bin/helper",
		"mixed/bin/helper":                  "elsewhere/bin/helper",
	} {
		if err := os.Symlink(filepath.Join(base, target), filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// A PATH directory of links shows itself and what the links need, never
// the trees their programs were built in: not Gatehouse's checkout, nor
// (when Gatehouse is hidden) its programs at all.
func TestFindToolchainsLinksAndGatehouse(t *testing.T) {
	base := fakeInstall(t)
	b := func(rel string) string { return filepath.Join(base, rel) }
	checkout := b("src/gatehouse")
	tests := []struct {
		name     string
		path     []string
		hide     []string
		wantRO   []string
		wantPath []string
		wantNote string
	}{
		{"install links, Gatehouse not named: the programs alone", []string{b("prefix/bin")}, nil,
			[]string{b("prefix/bin"), b("src/gatehouse/bin/gatehouse"), b("src/gatehouse/bin/gatehouse-sandbox-init")}, []string{b("prefix/bin")}, ""},
		{"install links to the hidden checkout: only the links", []string{b("prefix/bin")}, []string{checkout},
			[]string{b("prefix/bin")}, []string{b("prefix/bin")}, ""},
		{"the checkout's bin on PATH", []string{b("src/gatehouse/bin")}, []string{checkout}, nil, nil, "Gatehouse's own checkout or installation"},
		{"the Makefile's Node in the checkout", []string{b("src/gatehouse/.cache/node22/bin")}, []string{checkout}, nil, nil, "Gatehouse's own checkout or installation"},
		{"links to an installation and to a lone program", []string{b("links/bin")}, nil,
			[]string{b("apps/tool-1.2"), b("elsewhere/bin/helper"), b("links/bin")}, []string{b("links/bin")}, ""},
		{"an installation's bin with a link in it", []string{b("mixed/bin")}, nil,
			[]string{b("elsewhere/bin/helper"), b("mixed")}, []string{b("mixed/bin")}, ""},
		{"a hidden system dir hides nothing", []string{"/usr/bin"}, []string{"/usr/bin"}, nil, []string{"/usr/bin"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Find(Options{Path: tc.path, Home: t.TempDir(), Hide: tc.hide, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.ReadOnly, tc.wantRO) {
				t.Errorf("read-only %v\nwant %v", got.ReadOnly, tc.wantRO)
			}
			var path []string
			for _, p := range got.Path {
				if !slices.Contains(filepath.SplitList(sandbox.DefaultPath), p) || slices.Contains(tc.path, p) {
					path = append(path, p)
				}
			}
			if !slices.Equal(path, tc.wantPath) {
				t.Errorf("path %v, want %v", path, tc.wantPath)
			}
			notes := strings.Join(got.Notes, "\n")
			if tc.wantNote == "" && notes != "" || !strings.Contains(notes, tc.wantNote) {
				t.Errorf("notes %q, want %q", notes, tc.wantNote)
			}
			for _, ro := range got.ReadOnly {
				if sandbox.WithinClean(ro, checkout) && len(tc.hide) > 0 {
					t.Errorf("%s shows Gatehouse's hidden checkout", ro)
				}
				if ro == checkout || ro == b("src/gatehouse/bin") || ro == b("prefix") {
					t.Errorf("%s shows a whole tree a link merely pointed into", ro)
				}
			}
		})
	}
}
