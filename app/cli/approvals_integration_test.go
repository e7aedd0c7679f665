//go:build integration

package cli_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestApproveAnswer: `gatehouse approve ID --answer TEXT` answers a
// question card from the CLI. An empty answer, a bare approve of a
// question and --answer on a command card are refused with a sentence,
// and the card keeps waiting until a real answer reaches the agent.
func TestApproveAnswer(t *testing.T) {
	d := clitest.StartAsk(t)
	ctx := t.Context()
	s := d.MCP(ctx, "asker")
	done := make(chan outcome, 1)
	go func() {
		done <- callAsync(t.Context(), s, "ask_human", map[string]any{"question": "Which port should the dev server use?"})
	}()
	q := d.WaitApproval(clitest.CardWait)

	refusals := []struct {
		name string
		args []string
		want string
	}{
		{"empty", []string{"approve", q.ID, "--answer", ""}, "an empty answer is not sent"},
		{"blank", []string{"approve", q.ID, "--answer", "  \n\t"}, "an empty answer is not sent"},
		{"bare approve", []string{"approve", q.ID}, "answer it with gatehouse approve " + q.ID + " --answer TEXT"},
		{"with --session", []string{"approve", q.ID, "--answer", "8080", "--session"}, "does not go with --session"},
	}
	for _, r := range refusals {
		out, errOut, code := d.CLI(ctx, r.args...)
		if code == 0 || !strings.Contains(errOut, r.want) {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want a refusal saying %q", r.name, code, out, errOut, r.want)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Fatalf("%s: the refusal is more than one sentence: %q", r.name, errOut)
		}
	}
	if p := d.Pending(); len(p) != 1 || p[0].ID != q.ID {
		t.Fatalf("a refused answer decided the card: pending %+v", p)
	}
	select {
	case o := <-done:
		t.Fatalf("the agent got an answer from a refused command: %+v %v", o.res, o.err)
	default:
	}

	out, errOut, code := d.CLI(ctx, "approve", q.ID, "--answer", "8080, the one in .env.example")
	if code != 0 || !strings.Contains(out, "Answered") {
		t.Fatalf("answer: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	o := <-done
	if o.err != nil || o.res.IsError || clitest.Text(t, o.res) != "8080, the one in .env.example" {
		t.Fatalf("the agent got %+v %v", o.res, o.err)
	}

	// --answer on a card that is not a question is refused too.
	go func() {
		done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo hi"}})
	}()
	c := d.WaitApproval(clitest.CardWait)
	if _, errOut, code := d.CLI(ctx, "approve", c.ID, "--answer", "yes"); code == 0 || !strings.Contains(errOut, "is not a question") {
		t.Fatalf("--answer on a call card: exit %d, stderr %q", code, errOut)
	}
	if p := d.Pending(); len(p) != 1 || p[0].ID != c.ID {
		t.Fatalf("--answer decided a call card: pending %+v", p)
	}
	d.Decide(c.ID, "deny", "once", "test over")
	<-done
}
