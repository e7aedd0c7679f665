package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// TestRunCommandThroughTheSandbox: run_command hands the sandbox the argv
// it was given (no shell) in the workspace, audits the call and its
// result, and returns the structured result the schema describes.
func TestRunCommandThroughTheSandbox(t *testing.T) {
	fake := &calltest.Sandbox{Result: sandbox.Result{ExitCode: 2, Stdout: []byte("out secret-value\n"), Stderr: []byte("err\n")}}
	f := calltest.New(t, func(d *call.Deps) {
		d.Sandbox = fake
		d.Redact = call.TextRedactor(func(s string) string { return strings.ReplaceAll(s, "secret-value", "[REDACTED]") })
	})
	st := f.State
	res := f.Call(t, "run_command", `{"argv":["true","a b"]}`)
	cr, err := call.CommandResultOf(res)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || cr.ExitCode != 2 || cr.Stdout != "out [REDACTED]\n" || cr.Stderr != "err\n" {
		t.Fatalf("result %+v (error %v)", cr, res.IsError)
	}
	if len(fake.Runs()) != 1 {
		t.Fatalf("%d runs, want 1", len(fake.Runs()))
	}
	spec := fake.Runs()[0]
	if len(spec.Argv) != 2 || spec.Argv[0] != "true" || spec.Argv[1] != "a b" {
		t.Errorf("argv %q, want it as the agent sent it", spec.Argv)
	}
	if spec.Dir != st.Workspaces[0] {
		t.Errorf("cwd %q, want the workspace %q", spec.Dir, st.Workspaces[0])
	}
	kinds, _ := f.Audit.ForCall(res.CallID)
	if len(kinds) == 0 || kinds[0] != "tool.call" || kinds[len(kinds)-1] != "tool.result" {
		t.Errorf("audit rows %v, want tool.call first and tool.result last", kinds)
	}
	if ss := fake.Opened(); len(ss) != 1 || ss[0].ID != st.Live.ID() {
		t.Errorf("sandbox sessions %+v, want one for this session", ss)
	}
}

// TestRunCommandRefusesBeforeTheSandbox: a cwd outside the workspace or
// not a directory, or a missing binary, never reaches the sandbox, and
// says why.
func TestRunCommandRefusesBeforeTheSandbox(t *testing.T) {
	fake := &calltest.Sandbox{}
	f := calltest.New(t, func(d *call.Deps) { d.Sandbox = fake })
	if err := os.WriteFile(filepath.Join(f.State.Workspaces[0], "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"argv":["true"],"cwd":"notes.txt"}`, "is a file, not a directory"},
		{`{"argv":["true"],"cwd":"/"}`, "outside the workspace"},
		{`{"argv":["true"],"cwd":"nowhere"}`, "does not exist"},
		{`{"argv":["no-such-binary-here"]}`, "no-such-binary-here"},
	}
	for _, tt := range tests {
		res := f.Call(t, "run_command", tt.args)
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%s: %q, want an error saying %q", tt.args, res.Text, tt.want)
		}
	}
	if n := len(fake.Runs()); n != 0 {
		t.Fatalf("the sandbox ran %d commands", n)
	}
}
