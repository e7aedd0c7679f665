package call

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// fakeSandbox stands in for a backend in unit tests of the pipeline: it
// records what each run was asked and answers with a set result. The real
// backends' refusals are watched in their own real-process suites.
type fakeSandbox struct {
	mu     sync.Mutex
	specs  []sandbox.Spec
	opened []sandbox.SessionSpec
	result sandbox.Result
}

func (f *fakeSandbox) Name() string { return "fake" }

func (f *fakeSandbox) Open(_ context.Context, ss sandbox.SessionSpec) (sandbox.Session, error) {
	f.mu.Lock()
	f.opened = append(f.opened, ss)
	f.mu.Unlock()
	return f, nil
}

func (f *fakeSandbox) Run(_ context.Context, s sandbox.Spec) (sandbox.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs = append(f.specs, s)
	return f.result, nil
}

func (f *fakeSandbox) Close(context.Context) error { return nil }

func call(t *testing.T, r *Runner, st *session.State, tool, args string) Result {
	t.Helper()
	return r.Call(t.Context(), Request{State: st, Tool: tool, Args: json.RawMessage(args), Via: ViaMCP})
}

// TestRunCommandThroughTheSandbox: run_command hands the sandbox the argv
// it was given (no shell) in the workspace, audits the call and its
// result, and returns the structured result the schema describes.
func TestRunCommandThroughTheSandbox(t *testing.T) {
	fake := &fakeSandbox{result: sandbox.Result{ExitCode: 2, Stdout: []byte("out secret-value\n"), Stderr: []byte("err\n")}}
	r, st, got, _ := testRunner(t, func(d *Deps) {
		d.Sandbox = fake
		d.Redact = func(s string) string { return strings.ReplaceAll(s, "secret-value", "[REDACTED]") }
	})
	res := call(t, r, st, "run_command", `{"argv":["true","a b"]}`)
	cr, err := CommandResultOf(res)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || cr.ExitCode != 2 || cr.Stdout != "out [REDACTED]\n" || cr.Stderr != "err\n" {
		t.Fatalf("result %+v (error %v)", cr, res.IsError)
	}
	if len(fake.specs) != 1 {
		t.Fatalf("%d runs, want 1", len(fake.specs))
	}
	spec := fake.specs[0]
	if len(spec.Argv) != 2 || spec.Argv[0] != "true" || spec.Argv[1] != "a b" {
		t.Errorf("argv %q, want it as the agent sent it", spec.Argv)
	}
	if spec.Dir != st.Workspaces[0] {
		t.Errorf("cwd %q, want the workspace %q", spec.Dir, st.Workspaces[0])
	}
	kinds, _ := got.forCall(res.CallID)
	if len(kinds) == 0 || kinds[0] != "tool.call" || kinds[len(kinds)-1] != "tool.result" {
		t.Errorf("audit rows %v, want tool.call first and tool.result last", kinds)
	}
	if ss := fake.opened; len(ss) != 1 || ss[0].ID != st.Live.ID() {
		t.Errorf("sandbox sessions %+v, want one for this session", ss)
	}
}

// TestRunCommandRefusesBeforeTheSandbox: a cwd outside the workspace or
// a missing binary never reaches the sandbox, and says why.
func TestRunCommandRefusesBeforeTheSandbox(t *testing.T) {
	fake := &fakeSandbox{}
	r, st, _, _ := testRunner(t, func(d *Deps) { d.Sandbox = fake })
	tests := []struct{ args, want string }{
		{`{"argv":["true"],"cwd":"/"}`, "outside the workspace"},
		{`{"argv":["true"],"cwd":"nowhere"}`, "does not exist"},
		{`{"argv":["no-such-binary-here"]}`, "no-such-binary-here"},
	}
	for _, tt := range tests {
		res := call(t, r, st, "run_command", tt.args)
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%s: %q, want an error saying %q", tt.args, res.Text, tt.want)
		}
	}
	if len(fake.specs) != 0 {
		t.Fatalf("the sandbox ran %d commands", len(fake.specs))
	}
}

// TestFileToolsStayInTheWorkspace: writes and edits change the workspace
// and answer with what changed; a path out of it is refused in auto mode
// before any write.
func TestFileToolsStayInTheWorkspace(t *testing.T) {
	// With a sandbox, auto mode lets workspace edits through without a card.
	r, st, _, _ := testRunner(t, func(d *Deps) { d.Sandbox = &fakeSandbox{} })
	if err := r.deps.Sessions.SetMode(t.Context(), st.Live.ID(), "auto", "human"); err != nil {
		t.Fatal(err)
	}
	ws := st.Workspaces[0]
	if res := call(t, r, st, "write_file", `{"path":"new.txt","content":"one\ntwo\n"}`); res.IsError {
		t.Fatalf("write_file: %s", res.Text)
	}
	res := call(t, r, st, "edit_file", `{"path":"new.txt","old":"two","new":"three"}`)
	if res.IsError || !strings.Contains(res.Text, "+three") {
		t.Fatalf("edit_file: %s", res.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "new.txt")); string(b) != "one\nthree\n" {
		t.Fatalf("file holds %q", b)
	}
	res = call(t, r, st, "edit_file", `{"path":"new.txt","old":"absent","new":"x"}`)
	if !res.IsError {
		t.Fatalf("an edit of text that is not there succeeded: %s", res.Text)
	}
	res = call(t, r, st, "write_file", `{"path":"../escape.txt","content":"x"}`)
	if !res.IsError {
		t.Fatalf("a write outside the workspace succeeded: %s", res.Text)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "escape.txt")); err == nil {
		t.Fatal("the file outside the workspace was written")
	}
	res = call(t, r, st, "list_dir", `{}`)
	if res.IsError || !strings.Contains(res.Text, "new.txt") || !strings.Contains(res.Text, "a.txt") {
		t.Fatalf("list_dir: %s", res.Text)
	}
	res = call(t, r, st, "search_files", `{"pattern":"thr+ee"}`)
	if res.IsError || !strings.Contains(res.Text, "new.txt") {
		t.Fatalf("search_files: %s", res.Text)
	}
}

// TestAskHumanWithoutAnswer: a question nobody answers (the test broker
// times out at once) comes back as an error that says so, never as an
// empty answer.
func TestAskHumanWithoutAnswer(t *testing.T) {
	r, st, _, _ := testRunner(t)
	res := call(t, r, st, "ask_human", `{"question":"Which port?"}`)
	if !res.IsError || !strings.Contains(res.Text, "did not answer") {
		t.Fatalf("ask_human: %q", res.Text)
	}
	st.Elicit = func(_ context.Context, q string) (string, error) { return "8080 for " + q, nil }
	res = call(t, r, st, "ask_human", `{"question":"Which port?"}`)
	if res.IsError || res.Structured["answer"] != "8080 for Which port?" || res.Structured["via"] != "elicitation" {
		t.Fatalf("ask_human through the client: %+v", res)
	}
}
