package call

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// TestLandlockEntryNotes: a Landlock command refused a new entry in a
// directory that takes none (it lacks a protected name, or holds a
// secret) gets a note saying so; a refusal of anything else gets none.
func TestLandlockEntryNotes(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"src", "cfg"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"old.txt", "src/main.go"} {
		if err := os.WriteFile(filepath.Join(ws, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "cfg", ".env"), []byte("API_KEY=abcdefghijklmnop1234\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The root lacks .envrc and friends, and cfg holds a secret.
	locks := func(ws string) map[string]landlock.Lock { return LandlockLocks(ws, protect.Exposure{}) }
	tests := []struct {
		name, cwd, stderr string
		want              string // a part of the one note; "" for none
	}{
		{"bash redirect at the root", ws, "bash: line 1: new.txt: Permission denied\n", filepath.Join(ws, "new.txt")},
		{"dash redirect at the root", ws, "sh: 1: cannot create new.txt: Permission denied\n", filepath.Join(ws, "new.txt")},
		{"mkdir at the root", ws, "mkdir: cannot create directory ‘newdir’: Permission denied\n", filepath.Join(ws, "newdir")},
		{"touch from a subdirectory", filepath.Join(ws, "src"), "touch: cannot touch '../x.go': Permission denied\n", filepath.Join(ws, "x.go")},
		{"bash redirect at the root, its reason", ws, "bash: line 1: new.txt: Permission denied\n", "and other names that steer the next session"},
		{"python, absolute, beside a secret", "/", "PermissionError: [Errno 13] Permission denied: '" + filepath.Join(ws, "cfg", "n.md") + "'\n", "cfg holds .env, a secret Gatehouse hides"},
		{"a directory that lacks nothing", ws, "touch: cannot touch 'src/new.go': Permission denied\n", ""},
		{"an existing file", ws, "bash: old.txt: Permission denied\n", ""},
		{"removing an existing file at the root", ws, "rm: cannot remove 'old.txt': Permission denied\n", "refused removing or renaming " + filepath.Join(ws, "old.txt")},
		{"renaming it", ws, "mv: cannot move 'old.txt' to 'new.txt': Permission denied\n", "refused removing or renaming " + filepath.Join(ws, "old.txt")},
		{"an editor's save through a temporary file", ws, "sed: couldn't open temporary file ./sedX1b2c3: Permission denied\n", "refused making " + filepath.Join(ws, "sedX1b2c3")},
		{"removing in a directory that takes entries", ws, "rm: cannot remove 'src/main.go': Permission denied\n", ""},
		{"outside the workspace", ws, "touch: cannot touch '/etc/new': Permission denied\n", ""},
		{"another errno", ws, "bash: new.txt: Read-only file system\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes := landlockEntryNotes(newCommandOutput([]byte(tt.stderr)), tt.cwd, []string{ws}, locks)
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
