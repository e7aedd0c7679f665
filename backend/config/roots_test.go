package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRootsFileEditsInPlace: adding and removing roots rewrites only the
// roots, keeping comments and every other setting, whatever shape the
// file had.
func TestRootsFileEditsInPlace(t *testing.T) {
	tests := []struct {
		name, before string
		add          string
		want         []string
		keep         string // text that must survive
	}{
		{"no file", "", "/src/a", []string{"/src/a"}, ""},
		{"no table", "# mine\nmode = \"ask\"\n", "/src/a", []string{"/src/a"}, "# mine\nmode = \"ask\"\n"},
		{"table without roots", "[workspaces]\n\n[limits]\nmax_calls = 9\n", "/src/a", []string{"/src/a"}, "max_calls = 9"},
		{"roots over lines", "mode = \"auto\"\n[workspaces]\nroots = [\n  \"/src/x\", # first\n  \"/src/y]\",\n]\n[limits]\nmax_calls = 3\n", "/src/a", []string{"/src/x", "/src/y]", "/src/a"}, "max_calls = 3"},
		{"already there", "[workspaces]\nroots = [\"/src/a\"]\n", "/src/a", []string{"/src/a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gatehouse", "config.toml")
			if tt.before != "" {
				os.MkdirAll(filepath.Dir(path), 0o700)
				if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			f := RootsFile{Path: path}
			if err := f.AddRoot(tt.add); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path, true)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cfg.Workspaces.Roots, tt.want) {
				t.Fatalf("roots %q, want %q", cfg.Workspaces.Roots, tt.want)
			}
			b, _ := os.ReadFile(path)
			if !strings.Contains(string(b), tt.keep) {
				t.Fatalf("the edit lost %q:\n%s", tt.keep, b)
			}
			if err := f.RemoveRoot(tt.add); err != nil {
				t.Fatal(err)
			}
			cfg, _ = Load(path, true)
			if slices.Contains(cfg.Workspaces.Roots, tt.add) {
				t.Fatalf("%s still a root after removal: %q", tt.add, cfg.Workspaces.Roots)
			}
		})
	}
}

func TestOldWorkspacesKeySaysWhereItMoved(t *testing.T) {
	_, err := Parse([]byte("workspaces = [\"/src\"]\n"), "config.toml")
	if err == nil || !strings.Contains(err.Error(), "[workspaces]") || !strings.Contains(err.Error(), "roots") {
		t.Fatalf("err = %v", err)
	}
}

// TestReadOnlyFileAddsToTheSandboxTable: "always" on a card that proposes
// showing a path read-only lands in [sandbox] read_only, beside what the
// person wrote there.
func TestReadOnlyFileAddsToTheSandboxTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	before := "[sandbox]\n# mine\nbackend = \"bwrap\"\nread_only = [\"/opt/sdk\"]\n\n[workspaces]\nroots = [\"/src\"]\n"
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	f := ReadOnlyFile{Path: path}
	for range 2 {
		if err := f.AddReadOnly("/usr/share/dict"); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/opt/sdk", "/usr/share/dict"}; !slices.Equal(cfg.Sandbox.ReadOnly, want) || cfg.Sandbox.Backend != "bwrap" || !slices.Equal(cfg.Workspaces.Roots, []string{"/src"}) {
		t.Fatalf("read_only %q backend %q roots %q", cfg.Sandbox.ReadOnly, cfg.Sandbox.Backend, cfg.Workspaces.Roots)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "# mine") {
		t.Fatalf("the edit lost the comment:\n%s", b)
	}
}
