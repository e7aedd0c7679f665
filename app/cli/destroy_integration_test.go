//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// destroyWorkspace is a small Go project in git: five tracked files
// (app/go.mod, app/main.go, app/a.txt, app/b.txt, app/c.txt) in three
// commits, a merged branch, and a branch "lean" without app/c.txt. The
// files sit in app/ because Landlock cannot let a run create or remove a
// name in the workspace root itself (sandbox/README.md, Known limits).
func destroyWorkspace(t *testing.T, ws string) {
	t.Helper()
	app := filepath.Join(ws, "app")
	os.MkdirAll(app, 0o755)
	os.WriteFile(filepath.Join(app, "go.mod"), []byte("module small\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(app, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	hostGitIn(t, ws, "init", "-q", "-b", "main")
	hostGitIn(t, ws, "add", "-A")
	hostGitIn(t, ws, "commit", "-q", "-m", "go")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		os.WriteFile(filepath.Join(app, f), []byte(f+"\n"), 0o644)
	}
	hostGitIn(t, ws, "add", "-A")
	hostGitIn(t, ws, "commit", "-q", "-m", "text")
	os.WriteFile(filepath.Join(app, "a.txt"), []byte("more\n"), 0o644)
	hostGitIn(t, ws, "commit", "-q", "-am", "more")
	hostGitIn(t, ws, "branch", "merged")
	hostGitIn(t, ws, "checkout", "-q", "-b", "lean")
	hostGitIn(t, ws, "rm", "-q", "app/c.txt")
	hostGitIn(t, ws, "commit", "-q", "-m", "lean")
	hostGitIn(t, ws, "checkout", "-q", "main")
}

// destroyStep is one call and what it must come to: held behind an
// effect card whose reason says says (and denied), or applied at once.
type destroyStep struct {
	name string
	argv []string
	// busybox is argv for the container's busybox image, where it differs
	// (its find has no -delete).
	busybox []string
	// guarded: the command also removes .git/config and .git/hooks, which
	// a run that is not staged is killed for at once (the protected-path
	// guard). Whatever it removed before the kill is judged; when that is
	// nothing the rules hold, no card comes, and the repository must be
	// intact. Killed partway, it may have removed only the tracked files
	// or only part of .git, and its card says that much (partly).
	guarded bool
	partly  []string
	// writesConfig: git rewrites .git/config (git branch -d drops the
	// branch's section), which the Landlock guard kills a run for: a limit
	// of that backend (sandbox/README.md, Git under Landlock), so the
	// step runs elsewhere.
	writesConfig bool
	says         string // "" applies without a card
	// after runs on the host once the step is done.
	after func(t *testing.T, ws string)
}

// TestDestructionHoldsOnEveryBackend: on bwrap (staged), Landlock
// (checked in place, rolled back on Deny) and the container, destroying a
// small repository (find . -delete, the whole .git, its index, its refs,
// three of its four tracked files) holds behind an effect card that says
// what would be lost, and Deny leaves the files and .git exactly as they
// were; ordinary work (a commit, gc, deleting a merged branch, a build,
// deleting one file of five, switching branches) applies with no card.
func TestDestructionHoldsOnEveryBackend(t *testing.T) {
	sh := func(script string) []string { return []string{"sh", "-c", gitEnvArgs + script} }
	commitTheDeletion := func(t *testing.T, ws string) { hostGitIn(t, ws, "commit", "-q", "-am", "drop app/c.txt") }
	holds := []destroyStep{
		{name: "find . -delete", argv: []string{"find", ".", "-delete"}, busybox: []string{"sh", "-c", "find . -mindepth 1 -depth -exec rm -rf {} +"},
			says: "5 of the workspace's 5 tracked files and the repository's history (", guarded: true,
			partly: []string{"the repository's history (", "of the workspace's 5 tracked files"}},
		{name: "rm -rf .git", argv: []string{"rm", "-rf", ".git"}, says: "the repository's history (", guarded: true},
		{name: "rm .git/index", argv: []string{"rm", ".git/index"}, says: ".git/index (which listed 5 tracked files)"},
		{name: "rm -rf .git/refs", argv: []string{"rm", "-rf", ".git/refs"}, says: ".git/refs"},
	}
	// After the first of these the workspace tracks four files.
	work := []destroyStep{
		{name: "one file of five", argv: []string{"rm", "app/c.txt"}, after: commitTheDeletion},
		{name: "3 of 4 tracked files", argv: []string{"rm", "app/a.txt", "app/b.txt", "app/main.go"}, says: "3 of the workspace's 4 tracked files"},
	}
	gitWork := []destroyStep{
		{name: "git commit", argv: sh("echo again >> app/a.txt && git commit -qam again")},
		{name: "git gc", argv: sh("git gc -q")},
		{name: "git branch -d merged", argv: sh("git branch -q -d merged"), writesConfig: true},
		{name: "go build", argv: sh("cd app && GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -o prog . && rm prog")},
		{name: "git checkout another branch", argv: sh("git checkout -q lean")},
	}
	for _, tc := range []struct {
		backend string
		config  func(t *testing.T) string
		staged  bool
		busybox bool // the backend's image is busybox with git: no go
	}{
		{"bwrap", func(*testing.T) string { return "" }, true, false},
		{"landlock", func(*testing.T) string { return "[sandbox]\nbackend = \"landlock\"\n" }, false, false},
		{"container", containerGitConfig, true, true},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			if c := tc.config(t); c != "" {
				clitest.WriteConfig(t, ws, "config.toml", c)
			}
			destroyWorkspace(t, ws)
			d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
			steps := append(append(holds, work...), gitWork...)
			for _, st := range steps {
				if tc.busybox && st.name == "go build" {
					continue
				}
				if tc.busybox && st.busybox != nil {
					st.argv = st.busybox
				}
				if !tc.staged && st.writesConfig {
					continue
				}
				if st.says == "" {
					destroyApplies(t, d, st)
				} else {
					destroyHolds(t, d, st, tc.staged)
				}
				if st.after != nil {
					st.after(t, ws)
				}
			}
		})
	}
}

// destroyHolds runs st, expects its effect card, denies it, and checks
// the workspace, .git included, is as it was.
func destroyHolds(t *testing.T, d *clitest.Daemon, st destroyStep, staged bool) {
	t.Helper()
	before := tree(t, d.Workspace)
	head := hostGitIn(t, d.Workspace, "rev-parse", "HEAD")
	ch := asyncRun(t, d, map[string]any{"argv": st.argv})
	var r *mcp.CallToolResult
	clitest.WaitFor(t, 60*time.Second, "a card or the result", func() bool {
		select {
		case r = <-ch:
			return true
		default:
			return len(d.Pending()) > 0
		}
	})
	if r != nil {
		if staged || !st.guarded || !strings.Contains(clitest.Text(t, r), "killed (protected-path)") {
			t.Fatalf("%s: no card; the result:\n%s", st.name, clitest.Text(t, r))
		}
		// Killed before it removed anything the rules hold: what it did
		// remove applied, and the repository is whole.
		t.Logf("%s: stopped by the protected-path guard before it destroyed anything", st.name)
		repositoryIntact(t, d.Workspace, head)
		return
	}
	a := d.WaitApproval(time.Second)
	says := []string{st.says}
	if !staged && st.guarded {
		says = append(says, st.partly...)
	}
	if a.Kind != "effect" || !slices.ContainsFunc(says, func(s string) bool { return strings.Contains(a.Reason, s) }) {
		t.Fatalf("%s: card %q %q (%q), want an effect card saying %q", st.name, a.Kind, a.Reason, a.Findings, st.says)
	}
	if staged {
		if diff := diffTrees(before, tree(t, d.Workspace)); diff != "" {
			t.Fatalf("%s: the workspace changed while the card was held:\n%s", st.name, diff)
		}
	}
	d.Decide(a.ID, "deny", "once", "")
	e := effectPart(t, waitResult(t, ch))
	want := "discarded"
	if !staged {
		want = "rolled_back"
	}
	if e["outcome"] != want {
		t.Fatalf("%s: effect %v, want %s", st.name, e, want)
	}
	if diff := diffTrees(before, tree(t, d.Workspace)); diff != "" {
		t.Fatalf("%s: Deny left the workspace changed:\n%s", st.name, diff)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, ".git", "HEAD")); err != nil {
		t.Fatalf("%s: .git/HEAD after Deny: %v", st.name, err)
	}
}

// destroyApplies runs st and expects it to land with no card.
func destroyApplies(t *testing.T, d *clitest.Daemon, st destroyStep) {
	t.Helper()
	s := d.MCP(t.Context(), "work")
	r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": st.argv}})
	if err != nil || r.IsError {
		t.Fatalf("%s: %v %s", st.name, err, clitest.Text(t, r))
	}
	if p := d.Pending(); len(p) != 0 {
		t.Fatalf("%s: %d cards for ordinary work: %+v", st.name, len(p), p)
	}
	if e := effectPart(t, r); e["outcome"] != "applied" && e["outcome"] != "unchanged" {
		t.Fatalf("%s: effect %v", st.name, e)
	}
}

// repositoryIntact: HEAD is where it was, git finds every object it
// needs, and at most one tracked file is missing.
func repositoryIntact(t *testing.T, ws, head string) {
	t.Helper()
	if got := hostGitIn(t, ws, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD is %s, was %s", got, head)
	}
	hostGitIn(t, ws, "fsck", "--no-dangling")
	if gone := hostGitIn(t, ws, "ls-files", "--deleted"); strings.Count(gone, "\n") > 0 {
		t.Fatalf("tracked files gone with no card:\n%s", gone)
	}
}
