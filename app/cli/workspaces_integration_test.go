//go:build integration

package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// gitProject makes a project directory that is a git work tree (a .git
// directory with a HEAD is enough to mark its top) holding x.txt.
func gitProject(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.txt"), []byte("in "+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

// TestWorkspacesFollowTheAgent: an agent started in a project the daemon
// does not serve raises a workspace card instead of failing every call;
// allowed, its commands run there; "always" makes the project a root (in
// the config, listed by `gatehouse workspaces`); refused, the agent is
// told so with the person's message. A project that holds the home
// directory is refused without a card.
func TestWorkspacesFollowTheAgent(t *testing.T) {
	d := clitest.Start(t)
	bash := func(run, cwd string) (string, string, int) {
		return hookRun(t, d.Bin, d.Data, "claude", preToolUse(run, "Bash", map[string]any{"command": "cat " + filepath.Join(cwd, "..", "x.txt")}, cwd))
	}
	steps := []struct {
		name, decision, scope, message string
		wantAllow                      bool
	}{
		{"allowed once", "allow", "once", "", true},
		{"allowed always", "allow", "always", "", true},
		{"refused", "deny", "once", "not this repo", false},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			project := gitProject(t, "proj"+string(rune('a'+i)))
			type answer struct {
				out  string
				code int
			}
			done := make(chan answer, 1)
			go func() {
				out, _, code := bash(fmt.Sprintf("run-%d", i), filepath.Join(project, "sub"))
				done <- answer{out, code}
			}()
			a := d.WaitApproval(30 * time.Second)
			if a.Kind != "workspace" || len(a.Paths) != 1 || a.Paths[0] != project {
				t.Fatalf("card %+v, want a workspace card for %s", a, project)
			}
			d.Decide(a.ID, st.decision, st.scope, st.message)
			got := <-done
			dec, reason, input := claudeDecision(t, got.out)
			if !st.wantAllow {
				if dec != "deny" || !strings.Contains(reason, "not this repo") {
					t.Fatalf("refused project: %s %q", dec, reason)
				}
				return
			}
			if dec != "allow" {
				t.Fatalf("allowed project: %s %q", dec, reason)
			}
			out, errOut, code := runLine(t, d, input["command"].(string))
			if code != 0 || out != "in "+filepath.Base(project)+"\n" {
				t.Fatalf("the command in %s: exit %d %q %q", project, code, out, errOut)
			}
			// The next call of the run asks nothing.
			out2, _, _ := bash(fmt.Sprintf("run-%d", i), filepath.Join(project, "sub"))
			if dec, _, _ := claudeDecision(t, out2); dec != "allow" || len(d.Pending()) != 0 {
				t.Fatalf("second call: %s, %d cards", out2, len(d.Pending()))
			}
			o, _, _ := d.CLI(t.Context(), "workspaces", "--json")
			var roots []string
			json.Unmarshal([]byte(o), &roots)
			if slices.Contains(roots, project) != (st.scope == "always") {
				t.Fatalf("roots after %s: %s", st.name, o)
			}
		})
	}
	t.Run("home", func(t *testing.T) {
		home, _ := os.UserHomeDir()
		out, _, _ := bash("run-home", home)
		if dec, reason, _ := claudeDecision(t, out); dec != "deny" || !strings.Contains(reason, "home directory") {
			t.Fatalf("an agent in the home directory: %s %q", dec, reason)
		}
		if n := len(d.Pending()); n != 0 {
			t.Fatalf("%d cards for a project no card may allow", n)
		}
	})
}

// TestWorkspaceDeletedMidSession: a project deleted while its agent works
// gets a plain sentence for each call, and the daemon and the audit log go
// on.
func TestWorkspaceDeletedMidSession(t *testing.T) {
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "gone")
	if r := call(t, s, "run_command", map[string]any{"argv": []string{"true"}}); r.IsError {
		t.Fatalf("first call: %s", clitest.Text(t, r))
	}
	if err := os.RemoveAll(d.Workspace); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"run_command", map[string]any{"argv": []string{"true"}}},
		{"list_dir", map[string]any{}},
		{"write_file", map[string]any{"path": "x.txt", "content": "x"}},
	} {
		r := call(t, s, c.tool, c.args)
		text := clitest.Text(t, r)
		if !r.IsError || !strings.Contains(text, "no longer exists") {
			t.Errorf("%s in a deleted workspace: %s", c.tool, text)
		}
	}
	if out, errOut, code := d.CLI(t.Context(), "audit", "verify"); code != 0 {
		t.Fatalf("audit verify: %s %s", out, errOut)
	}
}

// TestClientWithNoProjectIsToldWhy: a plain MCP client that names no
// directory, against a daemon serving no workspace, is refused at
// initialize with the sentence that says what to do, not a closed
// connection; one that declares MCP roots is asked for them at its first
// call, and its first file:// root is its project (a card, as for any
// project outside the roots; refused where no card may allow it).
func TestClientWithNoProjectIsToldWhy(t *testing.T) {
	d := clitest.Start(t)
	d.Stop()
	d.Args = []string{"serve", "--listen", "127.0.0.1:0", "--data", d.Data}
	d.Restart()
	home, _ := os.UserHomeDir()
	project := gitProject(t, "rooted")
	cases := []struct {
		name string
		// caps nil: the client declares roots, listing roots.
		caps      *mcp.ClientCapabilities
		roots     []string
		addLater  string // a root the client adds (and notifies) after a first call fails for want of one
		decide    string // the workspace card's decision, if one is wanted
		wantInit  string // initialize fails saying this
		wantCall  string // the first call fails saying this
		wantRunIn string // else the call runs in this project
	}{
		{name: "no roots capability", caps: &mcp.ClientCapabilities{}, wantInit: "does not know which project"},
		{name: "no roots listed", wantCall: "does not know which project"},
		{name: "not a file root", roots: []string{"https://example.invalid/repo"}, wantCall: "does not know which project"},
		{name: "a project", roots: []string{"file://" + filepath.Join(project, "sub"), "https://example.invalid/repo"}, decide: "allow", wantRunIn: project},
		{name: "a project refused", roots: []string{"file://" + project}, decide: "deny", wantCall: "did not allow"},
		{name: "the home directory", roots: []string{"file://" + home}, wantCall: "home directory"},
		{name: "a root added later", addLater: "file://" + project, decide: "allow", wantRunIn: project},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := mcp.NewClient(&mcp.Implementation{Name: "no-project", Version: "1.0"}, &mcp.ClientOptions{Capabilities: c.caps})
			for _, r := range c.roots {
				cl.AddRoots(&mcp.Root{URI: r})
			}
			s, err := cl.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol})
			if c.wantInit != "" {
				if err == nil {
					s.Close()
					t.Fatal("a client with no project was served by a daemon with no workspace")
				}
				if !strings.Contains(err.Error(), c.wantInit) || !strings.Contains(err.Error(), "gatehouse workspaces add") {
					t.Fatalf("initialize refused without saying why: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("a client that lists its roots was refused at initialize: %v", err)
			}
			defer s.Close()
			if c.addLater != "" {
				if _, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_dir", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "does not know which project") {
					t.Fatalf("a call before the client had roots: %v", err)
				}
				cl.AddRoots(&mcp.Root{URI: c.addLater})
			}
			type answer struct {
				res *mcp.CallToolResult
				err error
			}
			done := make(chan answer, 1)
			go func() {
				r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"cat", "x.txt"}}})
				done <- answer{r, err}
			}()
			if c.decide != "" {
				a := d.WaitApproval(30 * time.Second)
				if a.Kind != "workspace" || len(a.Paths) != 1 || a.Paths[0] != project {
					t.Fatalf("card %+v, want a workspace card for %s", a, project)
				}
				d.Decide(a.ID, c.decide, "once", "")
			}
			got := <-done
			if c.wantCall != "" {
				if got.err == nil || !strings.Contains(got.err.Error(), c.wantCall) {
					t.Fatalf("first call: %v %+v, want an error saying %q", got.err, got.res, c.wantCall)
				}
				if n := len(d.Pending()); n != 0 {
					t.Fatalf("%d cards left", n)
				}
				return
			}
			if got.err != nil || got.res.IsError {
				t.Fatalf("first call: %v %+v", got.err, got.res)
			}
			if out, _ := got.res.StructuredContent.(map[string]any)["stdout"].(string); out != "in "+filepath.Base(c.wantRunIn)+"\n" {
				t.Fatalf("the command ran elsewhere: %q", out)
			}
			// The next call asks nothing.
			if r := call(t, s, "list_dir", map[string]any{}); r.IsError || len(d.Pending()) != 0 {
				t.Fatalf("second call: %s, %d cards", clitest.Text(t, r), len(d.Pending()))
			}
		})
	}
}
