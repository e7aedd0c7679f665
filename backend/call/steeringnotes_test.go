package call

import (
	"strings"
	"testing"
)

// A refused write of a steering file says which kind it is, who reads
// or runs it, and that write_file asks; other refusals inside the
// workspace get no such note.
func TestSteeringNotes(t *testing.T) {
	tests := []struct {
		name, stderr string
		want         []string // parts of the one note; nil for none
	}{
		{"dash, read-only", "sh: 1: cannot create CLAUDE.md: Read-only file system\n",
			[]string{"CLAUDE.md is read by Claude Code", "unless their own request names the file"}},
		{"creation guard", "touch: cannot touch '/home/u/proj/.devcontainer.json': Permission denied\n",
			[]string{"/home/u/proj/.devcontainer.json is a dev container definition", "write_file asks the person before changing it"}},
		{"mkdir inside a kind", "mkdir: cannot create directory ‘.zed/tasks’: Operation not permitted\n",
			[]string{".zed/tasks is Zed's project settings"}},
		{"mv", "mv: cannot move 't' to 'mise.toml': Read-only file system\n", []string{"mise.toml is mise's configuration"}},
		{"git's config, renamed onto", "error: could not write config file .git/config: Device or resource busy\n",
			[]string{".git/config is git's configuration", "git submodule init"}},
		{"a submodule's config", "error: could not lock config file /p/.git/modules/lib/config: Permission denied\n",
			[]string{"/p/.git/modules/lib/config is git's configuration"}},
		{"a hook", "sh: 1: cannot create .git/hooks/pre-commit: Read-only file system\n", []string{".git/hooks/pre-commit is one of git's hooks"}},
		{"git's index", "fatal: Unable to create '/p/.git/index.lock': Permission denied\n", nil},
		{"an ordinary file", "sh: 1: cannot create notes.md: Read-only file system\n", nil},
		{"no errno", "warning: CLAUDE.md is long\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes := steeringNotes(newCommandOutput([]byte(tt.stderr)))
			if tt.want == nil {
				if len(notes) != 0 {
					t.Fatalf("notes %q, want none", notes)
				}
				return
			}
			if len(notes) != 1 {
				t.Fatalf("notes %q, want one", notes)
			}
			for _, w := range tt.want {
				if !strings.Contains(notes[0], w) {
					t.Errorf("note %q lacks %q", notes[0], w)
				}
			}
		})
	}
}

// A staged run's kept-out note names a steering file's kind too.
func TestKeptOutNoteNamesTheKind(t *testing.T) {
	note := keptOutNote([]string{".envrc", "AGENTS.md"})
	for _, w := range []string{"did not apply .envrc, AGENTS.md", "AGENTS.md is read by Codex", "write_file can change it"} {
		if !strings.Contains(note, w) {
			t.Errorf("note %q lacks %q", note, w)
		}
	}
	if note := keptOutNote([]string{".git/hooks/pre-commit"}); strings.Contains(note, "write_file") {
		t.Errorf("a git hook's note speaks of write_file: %q", note)
	}
}
