package toolchain

import (
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
		{"missing entry skipped", []string{h("nope/bin")}, nil, nil, "does not exist"},
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
