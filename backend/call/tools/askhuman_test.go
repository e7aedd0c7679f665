package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
)

// TestAskHumanWithoutAnswer: a question nobody answers (the test broker
// times out at once) comes back as an error that says so, never as an
// empty answer.
func TestAskHumanWithoutAnswer(t *testing.T) {
	f := calltest.New(t)
	res := f.Call(t, "ask_human", `{"question":"Which port?"}`)
	if !res.IsError || !strings.Contains(res.Text, "did not answer") {
		t.Fatalf("ask_human: %q", res.Text)
	}
	f.State.Elicit = func(_ context.Context, q string) (string, error) { return "8080 for " + q, nil }
	res = f.Call(t, "ask_human", `{"question":"Which port?"}`)
	if res.IsError || res.Structured["answer"] != "8080 for Which port?" || res.Structured["via"] != "elicitation" {
		t.Fatalf("ask_human through the client: %+v", res)
	}
}
