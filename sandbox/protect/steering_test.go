package protect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Every steering name is kept at the workspace root: read-only when it
// exists, uncreatable when it does not. A name under a directory
// (.github/prompts) only where that directory exists, so a repository
// without .github can still get one; a suffix kind only for the files
// that exist.
func TestSteeringNamesAtTheRoot(t *testing.T) {
	ws := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "CLAUDE.md"), []byte("be nice\n"), 0o644),
		os.Mkdir(filepath.Join(ws, ".devcontainer"), 0o755),
		os.WriteFile(filepath.Join(ws, "team.code-workspace"), []byte("{}"), 0o644))
	s, err := For(ws)
	must(t, err)
	for _, n := range []string{"CLAUDE.md", ".devcontainer", "team.code-workspace"} {
		if !slices.Contains(s.Existing, filepath.Join(ws, n)) {
			t.Errorf("existing lacks %s: %v", n, s.Existing)
		}
	}
	for _, n := range SteeringNames {
		p := filepath.Join(ws, filepath.FromSlash(n))
		switch {
		case n == "CLAUDE.md" || n == ".devcontainer":
		case filepath.Dir(n) != ".":
			if slices.Contains(s.All(), p) || slices.Contains(s.All(), filepath.Join(ws, filepath.Dir(n))) {
				t.Errorf("%s is protected though its parent does not exist", n)
			}
		case !slices.Contains(s.Missing, p):
			t.Errorf("missing lacks %s", n)
		}
	}

	must(t, os.Mkdir(filepath.Join(ws, ".github"), 0o755))
	s, err = For(ws)
	must(t, err)
	for _, n := range []string{".github/copilot-instructions.md", ".github/instructions", ".github/prompts", ".github/chatmodes", ".github/agents"} {
		if !slices.Contains(s.Missing, filepath.Join(ws, filepath.FromSlash(n))) {
			t.Errorf("with a .github, missing lacks %s", n)
		}
	}
	if slices.Contains(s.All(), filepath.Join(ws, ".github")) {
		t.Errorf(".github itself is protected: %v", s.All())
	}
}

func TestSteeringKind(t *testing.T) {
	tests := []struct {
		path, name   string
		instructions bool
	}{
		{"/ws/CLAUDE.md", "CLAUDE.md", true},
		{"/ws/pkg/deep/CLAUDE.md", "CLAUDE.md", true},
		{"/ws/claude.md", "CLAUDE.md", true},
		{"/ws/Agents.md", "AGENTS.md", true},
		{"/ws/AGENTS.override.md", "AGENTS.override.md", true},
		{"/ws/.github/prompts/review.prompt.md", ".github/prompts", true},
		{"/ws/.clinerules/01-style.md", ".clinerules", true},
		{"/ws/.devcontainer/devcontainer.json", ".devcontainer", false},
		{"/ws/app.code-workspace", "*.code-workspace", false},
		{"/ws/.config/mise/config.toml", "mise/config.toml", false},
		{".mise.toml", ".mise.toml", false},
		{"/ws/src/.nvim.lua", ".nvim.lua", false},
	}
	for _, tt := range tests {
		k, name, ok := SteeringKind(tt.path)
		if !ok || name != tt.name || k.Instructions != tt.instructions {
			t.Errorf("%s: %q %v %v, want %q instructions=%v", tt.path, name, k.Instructions, ok, tt.name, tt.instructions)
		}
	}
	for _, p := range []string{"/ws/README.md", "/ws/docs/claude.md.bak", "/ws/.github/workflows/ci.yml", "/ws/.code-workspace.d/x", "/ws/src/mise.go", "/ws/.tool-versions", "/ws/.nvmrc"} {
		if _, name, ok := SteeringKind(p); ok {
			t.Errorf("%s matched %s", p, name)
		}
	}
}
