package policy

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect/protecttest"
)

// What the sandbox keeps read-only inside a writable workspace, file tools
// ask before writing: the two lists must not drift apart, or a name would
// be guarded on one path and open on the other.
func TestProtectedPathsMatchTheSandbox(t *testing.T) {
	fixed := append([]string{".git/hooks", ".git/config", ".git/commondir", ".git/config.worktree",
		".git/modules/x/hooks", ".git/modules/lib/foo/config", ".git/modules/x/commondir", ".git/modules/planted",
		".git/worktrees/w/commondir", ".git/worktrees/w/gitdir", ".git/worktrees/w/config.worktree", "vendor/lib/.git"},
		protect.Names...)
	fixed = append(fixed, protect.HookRunnerNames...)
	fixed = append(fixed, protect.SteeringNames...)
	for _, n := range fixed {
		p := path.Join("/ws", n)
		if _, ok := protectedPath(p); ok {
			continue
		}
		if _, ok := protectedPath(path.Join(p, "x")); !ok {
			t.Errorf("the sandbox protects %s, but writing it (or inside it) does not ask", n)
		}
	}
	for _, d := range []string{".claude", ".cursor", ".codex", ".gemini", ".vscode", ".idea"} {
		found := false
		for _, n := range protect.Names {
			found = found || n == d
		}
		if !found {
			t.Errorf("file tools ask before writing %s, but the sandbox lets commands write it", d)
		}
	}
	// Ordinary files near them still do not ask.
	for _, p := range []string{"/ws/.git/objects/ab/cdef", "/ws/.git/index", "/ws/src/config", "/ws/docs/hooks.md", "/ws/lefthook.go"} {
		if r, ok := protectedPath(p); ok {
			t.Errorf("%s asks: %s", p, r.Detail)
		}
	}
}

// What only the repository names (a hooks path, an included config file)
// reaches the policy through Session.Protected: the whole set
// sandbox/protect computes for a real repository asks when written.
func TestSessionProtectedAsks(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	ws := t.TempDir()
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	cmd := exec.Command(gitBin, "init", "-q")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + ws, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cfg := filepath.Join(ws, ".git", "config")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("[core]\n\thooksPath = tools/githooks\n[include]\n\tpath = ../team.gitconfig\n")
	f.Close()
	if err := os.Mkdir(filepath.Join(ws, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	set, err := protect.For(ws)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Load("", nil)
	sess := Session{Mode: ModeAcceptEdits, Workspaces: []string{ws}, Protected: set.All()}
	for _, target := range append(set.All(), filepath.Join(ws, "tools", "githooks", "pre-commit"), filepath.Join(ws, "team.gitconfig")) {
		d := p.Decide(sess, Action{Tool: ToolWriteFile, Paths: []string{target}})
		if d.Verdict != Ask {
			t.Errorf("writing %s: %s (%s), want ask", target, d.Verdict, d.Reason)
		}
	}
	if d := p.Decide(sess, Action{Tool: ToolWriteFile, Paths: []string{filepath.Join(ws, "tools", "build.sh")}}); d.Verdict != Allow {
		t.Errorf("writing an ordinary file beside the hooks: %s (%s)", d.Verdict, d.Reason)
	}
}

// Every file on the sandbox's secret list asks before file tools read
// it: commands cannot read it, so read_file must not either, unasked.
func TestSecretsMatchTheSandbox(t *testing.T) {
	for _, n := range protecttest.SecretExamples {
		if _, ok := sensitivePath(path.Join("/ws", n)); !ok {
			t.Errorf("the sandbox hides %s from commands, but reading it does not ask", n)
		}
	}
}
