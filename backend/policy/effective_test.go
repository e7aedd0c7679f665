package policy

import "testing"

// TestEffectiveNamesEveryBuiltinDecideCites: the Policy screen's table
// lists, for each mode, every builtin rule id a card or the tester can
// cite, so a person can find the rule that decided.
func TestEffectiveNamesEveryBuiltinDecideCites(t *testing.T) {
	f := newFixture(t)
	p := Builtin()
	ws, home := f.ws, f.home
	in, cmd := f.in, f.cmd
	calls := []Action{
		{Tool: ToolAskHuman},
		{Tool: "no_such_tool"},
		{Tool: ToolReadFile, Paths: []string{in("a.go")}},
		{Tool: ToolReadFile, Paths: []string{"/etc/hosts"}},
		{Tool: ToolReadFile, Paths: []string{in(".env")}},
		{Tool: ToolWriteFile, Paths: []string{in("a.go")}},
		{Tool: ToolWriteFile, Paths: []string{in(".git/hooks/pre-commit")}},
		{Tool: ToolWriteFile, Paths: []string{home + "/x"}},
		cmd("/usr/bin/ls", "ls"),
		cmd("/usr/bin/make", "make"),
		cmd("/usr/bin/docker", "docker", "ps"),
		cmd("/usr/bin/git", "git", "push", "--force"),
		cmd("/usr/bin/grep", "grep", "password", "x"),
		{Tool: ToolRunCommand, Binary: "/bin/bash", Argv: []string{"bash"}, Cwd: ws, Unconfined: true},
		{Tool: ToolFetchURL, URL: "https://pkgs.example.test/"},
		{Tool: ToolFetchURL, URL: "::bad"},
	}
	for _, mode := range Modes {
		ids := map[string]bool{}
		for _, r := range p.Effective(mode) {
			ids[r.ID] = true
		}
		for _, sandboxed := range []bool{true, false} {
			for _, c := range calls {
				d := p.Decide(Session{Mode: mode, Workspaces: []string{ws}, Home: home, Sandboxed: sandboxed, Goal: "tidy the code"}, c)
				if d.Rule.Source == SourceBuiltin && !ids[d.Rule.ID] && d.Rule.ID != "bad-url" {
					t.Errorf("mode %s: %+v decided by %q, which the Policy screen does not list", mode, c, d.Rule.ID)
				}
			}
		}
	}
}
