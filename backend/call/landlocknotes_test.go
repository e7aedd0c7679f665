package call

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLandlockEntryNotes: a Landlock command refused a new entry in a
// directory that lacks a protected name gets a note saying so; a refusal
// of anything else gets none.
func TestLandlockEntryNotes(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"src", "docs"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "old.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The root lacks .envrc, and docs lacks a name of its own.
	missing := func(string) []string {
		return []string{filepath.Join(ws, ".envrc"), filepath.Join(ws, "docs", ".mcp.json")}
	}
	tests := []struct {
		name, cwd, stderr string
		want              string // a part of the one note; "" for none
	}{
		{"bash redirect at the root", ws, "bash: line 1: new.txt: Permission denied\n", filepath.Join(ws, "new.txt")},
		{"dash redirect at the root", ws, "sh: 1: cannot create new.txt: Permission denied\n", filepath.Join(ws, "new.txt")},
		{"mkdir at the root", ws, "mkdir: cannot create directory ‘newdir’: Permission denied\n", filepath.Join(ws, "newdir")},
		{"touch from a subdirectory", filepath.Join(ws, "src"), "touch: cannot touch '../x.go': Permission denied\n", filepath.Join(ws, "x.go")},
		{"python, absolute", "/", "PermissionError: [Errno 13] Permission denied: '" + filepath.Join(ws, "docs", "n.md") + "'\n", "lacks .mcp.json"},
		{"a directory that lacks nothing", ws, "touch: cannot touch 'src/new.go': Permission denied\n", ""},
		{"an existing file", ws, "bash: old.txt: Permission denied\n", ""},
		{"outside the workspace", ws, "touch: cannot touch '/etc/new': Permission denied\n", ""},
		{"another errno", ws, "bash: new.txt: Read-only file system\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes := landlockEntryNotes([]byte(tt.stderr), tt.cwd, []string{ws}, missing)
			if tt.want == "" {
				if len(notes) != 0 {
					t.Fatalf("notes %q, want none", notes)
				}
				return
			}
			if len(notes) != 1 || !strings.Contains(notes[0], tt.want) || !strings.Contains(notes[0], "Landlock") {
				t.Fatalf("notes %q, want one saying %q", notes, tt.want)
			}
		})
	}
}
