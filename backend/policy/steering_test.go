package policy

import (
	"path"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// In auto mode, with the sandbox on, writing any kind of steering file
// asks, and the card says what would run it or read it. The person's
// own prompt lifts the card for instruction and memory files only, and
// only when it names the file or its tool with what the file is.
func TestSteeringFilesAsk(t *testing.T) {
	p, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := "/home/u/proj"
	decide := func(goal, target string) Decision {
		s := Session{Mode: ModeAuto, Workspaces: []string{ws}, Home: "/home/u", Sandboxed: true, Goal: goal}
		return p.Decide(s, Action{Tool: ToolWriteFile, Paths: []string{target}})
	}
	for _, k := range protect.Steering {
		for _, n := range k.Names {
			rel := n
			if strings.HasPrefix(n, "*") {
				rel = "team" + n[1:]
			}
			name := rel
			if !strings.Contains(path.Base(rel), ".") || strings.HasSuffix(rel, ".d") {
				rel += "/settings.json" // inside a directory kind
			}
			t.Run(name, func(t *testing.T) {
				for _, target := range []string{path.Join(ws, rel), path.Join(ws, "pkg", rel)} {
					d := decide("", target)
					if d.Verdict != Ask || d.Rule.ID != string(RiskProtected) || !strings.Contains(d.Reason, k.Reader) || !strings.HasPrefix(d.Reason, target+" ") {
						t.Errorf("writing %s: %s (%s: %s), want ask saying %q", target, d.Verdict, d.Rule.ID, d.Reason, k.Reader)
					}
				}
				// A prompt naming the file asks for it, for instruction
				// files only.
				d := decide("please update "+name+" with the new build steps", path.Join(ws, rel))
				if want := map[bool]Verdict{true: Allow, false: Ask}[k.Instructions]; d.Verdict != want {
					t.Errorf("with the goal naming %s: %s (%s), want %s", name, d.Verdict, d.Reason, want)
				}
				// A prompt about something else leaves the card.
				if d := decide("fix the flaky test in pkg/server", path.Join(ws, rel)); d.Verdict != Ask {
					t.Errorf("with an unrelated goal: %s (%s)", d.Verdict, d.Reason)
				}
			})
		}
	}
}

// Case variants of an instruction file are the same kind (on a
// case-insensitive filesystem they are the same file); the goal's tool
// plus what the file is counts, the tool alone or another tool's name
// does not.
func TestSteeringGoalExemption(t *testing.T) {
	p, _ := Load("", nil)
	ws := "/home/u/proj"
	tests := []struct {
		goal, target string
		want         Verdict
	}{
		{"", "claude.md", Ask},
		{"", "docs/Agents.MD", Ask},
		{"update claude.md", "CLAUDE.md", Allow},
		{"add a rule to the Claude instructions about tabs", "CLAUDE.md", Allow},
		{"remember in Claude's memory that we use pnpm", "pkg/CLAUDE.md", Allow},
		{"update CLAUDE.md", "CLAUDE.local.md", Ask},
		{"update CLAUDE.md", "AGENTS.md", Ask},
		{"ask claude to fix the build", "CLAUDE.md", Ask},
		{"update the agents instructions", "AGENTS.md", Allow},
		{"tell copilot our rules", ".github/copilot-instructions.md", Allow},
		{"edit copilot-instructions.md", ".github/copilot-instructions.md", Allow},
		{"update the instructions", ".github/instructions/go.instructions.md", Ask},
		{"update .cursorrules", ".cursorrules", Allow},
		// Not instruction files: the goal never lifts the card.
		{"update .devcontainer/devcontainer.json", ".devcontainer/devcontainer.json", Ask},
		{"add a mise task rule", "mise.toml", Ask},
		{"update .aider.conf.yml", ".aider.conf.yml", Ask},
		// Inside .claude the agent's settings and hooks decide.
		{"update CLAUDE.md", ".claude/CLAUDE.md", Ask},
	}
	for _, tt := range tests {
		s := Session{Mode: ModeAuto, Workspaces: []string{ws}, Home: "/home/u", Sandboxed: true, Goal: tt.goal}
		d := p.Decide(s, Action{Tool: ToolWriteFile, Paths: []string{path.Join(ws, tt.target)}})
		if d.Verdict != tt.want {
			t.Errorf("goal %q, writing %s: %s (%s), want %s", tt.goal, tt.target, d.Verdict, d.Reason, tt.want)
		}
	}
}
