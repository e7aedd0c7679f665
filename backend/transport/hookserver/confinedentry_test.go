package hookserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// An agent confined whole on Landlock is told why its own write of a new
// file at the project's root (which lacks .envrc and friends) or beside a
// hidden secret cannot work, and nothing else is refused.
func TestConfinedNewEntry(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"cfg", "shown"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, ".env"), []byte("API_KEY=abcdefghijklmnop1234\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exposed, err := protect.ParseExposure([]string{"shown/.env"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, backend, path string
		refused             bool
	}{
		{"new file at the root, on Landlock", "landlock", filepath.Join(ws, "notes.md"), true},
		{"a file there already", "landlock", filepath.Join(ws, "README.md"), false},
		{"new file in a subdirectory", "landlock", filepath.Join(ws, "src", "new.go"), false},
		{"new file beside a secret", "landlock", filepath.Join(ws, "cfg", "new.yml"), true},
		{"new file beside a secret the person exposes", "landlock", filepath.Join(ws, "shown", "new.yml"), false},
		{"outside the workspace", "landlock", filepath.Join(t.TempDir(), "x"), false},
		{"on bubblewrap, which guards each name", "bwrap", filepath.Join(ws, "notes.md"), false},
		{"an agent not confined", "", filepath.Join(ws, "notes.md"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &session.State{Workspaces: []string{ws}, Backend: tt.backend}
			got := confinedNewEntry(st, []string{tt.path}, exposed)
			if (got != "") != tt.refused {
				t.Fatalf("confinedNewEntry(%s) = %q, want refused %v", tt.path, got, tt.refused)
			}
			if tt.refused && (!strings.Contains(got, tt.path) || !strings.Contains(got, "write_file")) {
				t.Errorf("the reason does not name the file and what works: %q", got)
			}
		})
	}
}
