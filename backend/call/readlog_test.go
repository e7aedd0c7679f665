package call_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
)

func TestAllowedReadIsOneRow(t *testing.T) {
	f := calltest.New(t)
	r, st, got := f.Runner, f.State, f.Audit
	res := r.Call(t.Context(), call.Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)})
	if res.IsError || !strings.Contains(res.Text, "hello") {
		t.Fatalf("read_file: %+v", res)
	}
	kinds, list := got.ForCall(res.CallID)
	if strings.Join(kinds, ",") != "tool.result" {
		t.Fatalf("rows = %v, want one tool.result", kinds)
	}
	p := list[0].Payload
	args, _ := p["args"].(map[string]any)
	if list[0].Actor != "agent:probe" || p["verdict"] != "allow" || args["path"] != "a.txt" || p["tool"] != "read_file" || p["is_error"] != false {
		t.Fatalf("merged row: actor %s payload %v", list[0].Actor, p)
	}
}

func TestReadOffTheStraightPathKeepsEveryRow(t *testing.T) {
	f := calltest.New(t)
	r, st, got, outside := f.Runner, f.State, f.Audit, f.Outside
	res := r.Call(t.Context(), call.Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"a.txt","unit":"pages"}`)})
	if kinds, _ := got.ForCall(res.CallID); !res.IsError || strings.Join(kinds, ",") != "tool.call,tool.invalid" {
		t.Fatalf("invalid read: %v %v", res.IsError, kinds)
	}
	res = r.Call(t.Context(), call.Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"missing.txt"}`)})
	if kinds, _ := got.ForCall(res.CallID); !res.IsError || strings.Join(kinds, ",") != "tool.call,tool.validated,policy.decision,tool.error" {
		t.Fatalf("failed read: %v %v", res.IsError, kinds)
	}
	// Outside the workspace asks; nobody answers, so it expires and is
	// denied. The call's rows come before the card's.
	res = r.Call(t.Context(), call.Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":` + strconvQuote(outside) + `}`)})
	kinds, _ := got.ForCall(res.CallID)
	if !res.IsError || len(kinds) < 5 || strings.Join(kinds[:4], ",") != "tool.call,tool.validated,policy.decision,approval.requested" || kinds[len(kinds)-1] != "tool.denied" {
		t.Fatalf("asked read: %v %v", res.IsError, kinds)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestPanicBecomesToolError: a panic anywhere in a call is caught, answered
// as a tool error with the call id, and recorded; the next call runs.
func TestPanicBecomesToolError(t *testing.T) {
	f := calltest.New(t)
	r, st, got := f.Runner, f.State, f.Audit
	for name, args := range map[string]string{"read_file": `{"path":"a.txt"}`, "write_file": `{"path":"a.txt","content":"x"}`} {
		tool := r.Tool(name)
		orig := tool.MakePlan
		tool.MakePlan = func(ctx context.Context, c *call.InFlight) (*call.Plan, error) { panic("boom in " + name) }
		res := r.Call(t.Context(), call.Request{State: st, Tool: name, Args: json.RawMessage(args)})
		tool.MakePlan = orig
		if !res.IsError || !strings.Contains(res.Text, res.CallID) || strings.Contains(res.Text, "boom") || res.Structured["error"] == nil {
			t.Fatalf("%s: %+v", name, res)
		}
		kinds, rows := got.ForCall(res.CallID)
		if kinds[len(kinds)-1] != "tool.error" {
			t.Fatalf("%s rows: %v", name, kinds)
		}
		if strings.Contains(rows[len(rows)-1].Payload["error"].(string), "boom") {
			t.Fatalf("the panic's text reached the audit row shown to the agent: %v", rows[len(rows)-1].Payload)
		}
	}
	if res := r.Call(t.Context(), call.Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)}); res.IsError {
		t.Fatalf("after the panics: %+v", res)
	}
}
