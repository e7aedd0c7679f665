//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Values of a tracked .env: committed, then changed in a second commit.
const (
	firstEnvValue  = "first-env-value-4711"
	secondEnvValue = "second-env-value-0815"
)

// gitSecretWorkspace is a repository whose .env held firstEnvValue in
// its first commit and holds secondEnvValue now (committed).
func gitSecretWorkspace(t *testing.T, ws string) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The work happens in src/: Landlock lets nothing new be made in a
	// directory that holds a secret, the root here (sandbox/README.md).
	must(os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	must(os.WriteFile(filepath.Join(ws, "src", "a.txt"), []byte("a\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, ".env"), []byte("API_KEY="+firstEnvValue+"\nPORT=8080\n"), 0o644))
	hostGitIn(t, ws, "init", "-q", "-b", "main")
	hostGitIn(t, ws, "add", "-A")
	hostGitIn(t, ws, "commit", "-q", "-m", "first")
	must(os.WriteFile(filepath.Join(ws, ".env"), []byte("API_KEY="+secondEnvValue+"\nPORT=8080\n"), 0o644))
	hostGitIn(t, ws, "commit", "-q", "-am", "second")
}

// A tracked .env's values never come back through git, whichever way
// git is asked (history, objects, diffs, archives, grep), and git's
// writing commands (commit -am, stash and pop, reset --hard, rebase)
// work without a card and leave the .env and its committed blob as they
// were, on bwrap (staged, the stand-in), Landlock (unstaged, the file
// unreadable) and the container (the stand-in, on an image with git).
func TestTrackedSecretThroughGit(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock", "container"} {
		t.Run(backend, func(t *testing.T) {
			config := "[sandbox]\nbackend = \"" + backend + "\"\n"
			if backend == "container" {
				config = containerGitConfig(t)
			}
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			clitest.WriteConfig(t, ws, "config.toml", config)
			gitSecretWorkspace(t, ws)
			blob := hostGitIn(t, ws, "rev-parse", "HEAD:.env")
			oldBlob := hostGitIn(t, ws, "rev-parse", "HEAD~1:.env")
			d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
			s := d.MCP(t.Context(), "gitsecret")
			run := func(argv ...string) string {
				t.Helper()
				r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": argv}})
				if err != nil {
					t.Fatalf("%v: %v", argv, err)
				}
				text := clitest.Text(t, r)
				for _, v := range []string{firstEnvValue, secondEnvValue} {
					if strings.Contains(text, v) {
						t.Errorf("%v printed a value of .env:\n%s", argv, text)
					}
				}
				if r.IsError {
					t.Errorf("%v failed:\n%s", argv, text)
				}
				return text
			}
			for _, argv := range [][]string{
				{"git", "log", "-p"},
				{"git", "show", "HEAD~1:.env"},
				{"git", "cat-file", "-p", oldBlob},
				{"git", "diff", "HEAD~1"},
				{"sh", "-c", "git archive HEAD | tar -xO .env"},
				{"sh", "-c", "git grep API_KEY $(git rev-list --all)"},
			} {
				if out := run(argv...); !strings.Contains(out, "[REDACTED:.env:API_KEY]") {
					t.Errorf("%v does not show the marker:\n%s", argv, out)
				}
			}
			// A copy of the value outside the secret file (a log, a note)
			// is redacted by the file tools too.
			if err := os.WriteFile(filepath.Join(ws, "src", "notes.txt"), []byte("key was "+secondEnvValue+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"read_file", map[string]any{"path": "src/notes.txt"}},
				{"search_files", map[string]any{"pattern": "key was"}},
			} {
				r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil {
					t.Fatalf("%s: %v", c.tool, err)
				}
				if text := clitest.Text(t, r); strings.Contains(text, secondEnvValue) || !strings.Contains(text, "[REDACTED:.env:API_KEY]") {
					t.Errorf("%s: %s", c.tool, text)
				}
			}
			if err := os.Remove(filepath.Join(ws, "src", "notes.txt")); err != nil {
				t.Fatal(err)
			}
			for _, script := range []string{
				"git status --porcelain",
				"echo more >> src/a.txt && git commit -qam third",
				"echo dirty >> src/a.txt && git stash -q && git stash pop -q",
				"git reset -q --hard HEAD",
				"git checkout -qb side && echo s > src/s.txt && git add src/s.txt && git commit -qm side && " +
					"git checkout -q main && echo m > src/m.txt && git add src/m.txt && git commit -qm m && " +
					"git checkout -q side && git rebase -q main && git checkout -q main",
			} {
				out := run("sh", "-c", gitEnvArgs+script)
				if strings.Contains(out, ".env") {
					t.Errorf("%q mentions .env:\n%s", script, out)
				}
			}
			if n := len(d.Pending()); n != 0 {
				t.Errorf("%d cards for git's ordinary work: %+v", n, d.Pending())
			}
			if b, _ := os.ReadFile(filepath.Join(ws, ".env")); string(b) != "API_KEY="+secondEnvValue+"\nPORT=8080\n" {
				t.Errorf(".env is now %q", b)
			}
			for _, ref := range []string{"main", "side"} {
				if got := hostGitIn(t, ws, "rev-parse", ref+":.env"); got != blob {
					t.Errorf("%s records .env as %s, want %s", ref, got, blob)
				}
			}
			if got := hostGitIn(t, ws, "log", "--format=%s", "-n", "4", "main"); got != "m\nthird\nsecond\nfirst" {
				t.Errorf("main's history: %q", got)
			}
			if got := hostGitIn(t, ws, "status", "--porcelain"); got != "" {
				t.Errorf("the workspace is not clean after the runs: %q", got)
			}
		})
	}
}

// A command that makes git record the stand-in anyway (here by
// switching off the config the run gets, so git re-reads the .env) does
// not land silently: the change set is held on a card that names the
// secret, and denying it leaves the repository as it was.
func TestSecretThroughItsStandInHolds(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	gitSecretWorkspace(t, ws)
	head := hostGitIn(t, ws, "rev-parse", "HEAD")
	d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
	ch := asyncRun(t, d, map[string]any{"argv": []string{"sh", "-c", gitEnvArgs +
		"echo more >> src/a.txt && GIT_CONFIG_COUNT=0 git update-index --really-refresh; GIT_CONFIG_COUNT=0 git commit -qam stand-in"}})
	a := d.WaitApproval(60 * time.Second)
	findings := strings.Join(a.Findings, "\n")
	if a.Kind != "effect" || !strings.Contains(findings, "main records a different .env") || !strings.Contains(findings, "index records a different .env") {
		t.Fatalf("card %q %+v", a.Kind, a.Findings)
	}
	d.Decide(a.ID, "deny", "once", "")
	waitResult(t, ch)
	if got := hostGitIn(t, ws, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s after deny", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".env")); string(b) != "API_KEY="+secondEnvValue+"\nPORT=8080\n" {
		t.Errorf(".env is now %q", b)
	}
}

// A checkout of the .env of an older commit (git updates the index's
// entry, and cannot write the covered or unreadable file) holds on every
// backend, judged from the staged layer or, under Landlock, from the
// checkpoint before; Deny leaves the index as it was.
func TestSecretCheckoutHoldsOnEveryBackend(t *testing.T) {
	for _, tc := range []struct {
		backend, config string
		undone          string
	}{
		{"bwrap", "", "discarded"},
		{"landlock", "[sandbox]\nbackend = \"landlock\"\n", "rolled_back"},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			if tc.config != "" {
				clitest.WriteConfig(t, ws, "config.toml", tc.config)
			}
			gitSecretWorkspace(t, ws)
			d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
			ch := asyncRun(t, d, map[string]any{"argv": []string{"sh", "-c", gitEnvArgs + "git checkout -q HEAD~1 -- ."}})
			a := d.WaitApproval(60 * time.Second)
			if a.Kind != "effect" || !strings.Contains(strings.Join(a.Findings, "\n"), "git's index records a different .env") {
				t.Fatalf("card %q %+v", a.Kind, a.Findings)
			}
			d.Decide(a.ID, "deny", "once", "")
			if e := effectPart(t, waitResult(t, ch)); e["outcome"] != tc.undone {
				t.Errorf("effect %v, want %s", e, tc.undone)
			}
			if got := hostGitIn(t, ws, "status", "--porcelain"); got != "" {
				t.Errorf("the repository after Deny: %q", got)
			}
		})
	}
}

// An agent's own Read of a file that holds a workspace secret's value
// (a copy of the .env's key in a note) is pointed at a redacted copy, as
// for a private key: the hook redacts with the same values.
func TestNativeReadOfAWorkspaceSecretValueIsRedacted(t *testing.T) {
	d := clitest.Start(t)
	if err := os.WriteFile(filepath.Join(d.Workspace, ".env"), []byte("API_KEY="+secondEnvValue+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(d.Workspace, "notes.txt")
	if err := os.WriteFile(note, []byte("the key is "+secondEnvValue+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := hookRun(t, d.Bin, d.Data, "claude", preToolUse("run-note", "Read", map[string]any{"file_path": note}, d.Workspace))
	dec, reason, input := claudeDecision(t, out)
	if dec != "allow" {
		t.Fatalf("read: %s %s", dec, reason)
	}
	copyPath, _ := input["file_path"].(string)
	if copyPath == "" || copyPath == note {
		t.Fatalf("the read was not pointed at a redacted copy: %v", input)
	}
	b, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secondEnvValue) || !strings.Contains(string(b), "[REDACTED:.env:API_KEY]") {
		t.Fatalf("the copy the model reads holds:\n%s", b)
	}
}
