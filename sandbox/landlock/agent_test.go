package landlock

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A whole agent's rules: its project writable but for protected and
// hidden paths (and what a protected link leads to), its state writable but for its settings, its home and
// what is hidden granted nothing, each path carved to the one rule it
// needs.
func TestAgentRules(t *testing.T) {
	root := t.TempDir()
	p := func(rel string) string { return filepath.Join(root, rel) }
	for _, d := range []string{"ws/.git/hooks", "ws/src", "ws/cfg/claude", "state/sessions", "home/.ssh", "runhome", "dotfiles"} {
		if err := os.MkdirAll(p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"ws/.env", "ws/README", "state/settings.json", "home/.ssh/id", "dotfiles/CLAUDE.md", "home/.ssh/config"} {
		if err := os.WriteFile(p(f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A protected name that is a link: what it leads to is kept too. The
	// agent's own settings kept in a dotfiles directory are shown
	// read-only there; one that leads to a hidden file is not.
	for link, to := range map[string]string{
		"ws/.claude": "cfg/claude", "state/CLAUDE.md": p("dotfiles/CLAUDE.md"), "state/ssh.json": p("home/.ssh/config"),
	} {
		if err := os.Symlink(to, p(link)); err != nil {
			t.Fatal(err)
		}
	}
	l := AgentRules(Agent{
		ReadWrite:  []string{p("runhome"), p("state")},
		Workspaces: []string{p("ws")},
		Protected:  []string{p("ws/.git/hooks"), p("ws/.claude")},
		Settings:   []string{p("state/settings.json"), p("state/CLAUDE.md"), p("state/ssh.json")},
		Hidden:     []string{p("ws/.env"), p("home/.ssh")},
	})
	ruleOf := func(path string) string {
		for name, list := range map[string][]string{
			"list": l.ListDirs, "ro-dir": l.RODirs, "ro-file": l.ROFiles,
			"rw-dir": l.RWDirs, "rw-file": l.RWFiles, "git": l.GitDirs,
		} {
			if slices.Contains(list, path) {
				return name
			}
		}
		return "none"
	}
	for _, tc := range []struct{ path, want string }{
		{"ws", "list"}, // a hidden file below: listed, its entries granted one by one
		{"ws/.env", "none"},
		{"ws/.git/hooks", "ro-dir"},
		{"ws/src", "rw-dir"},
		{"ws/cfg", "list"},
		{"ws/cfg/claude", "ro-dir"},
		{"ws/.claude", "none"}, // a link gets no rule: its target's holds
		{"ws/README", "rw-file"},
		{"state", "list"},
		{"state/settings.json", "ro-file"},
		{"state/sessions", "rw-dir"},
		{"runhome", "rw-dir"},
		{"dotfiles/CLAUDE.md", "ro-file"},
		{"dotfiles", "none"},
		{"home/.ssh/config", "none"},
		{"home", "none"},
		{"home/.ssh", "none"},
		{"home/.ssh/id", "none"},
	} {
		if got := ruleOf(p(tc.path)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.path, got, tc.want)
		}
	}
	if !slices.Contains(l.RODirs, "/proc") || !slices.Contains(l.RWFiles, "/dev/null") {
		t.Errorf("the system's rules are missing: %+v", l)
	}
}
