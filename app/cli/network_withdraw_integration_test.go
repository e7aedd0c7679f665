//go:build integration

package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// unanswered connects to a made-up name, giving up after a second: its
// network card is still in front of the person when it exits.
const unanswered = `curl -s -m 1 http://unanswered.example.test/; echo gave-up`

// TestCommandEndWithdrawsItsCards: a command that exits while its
// network card waits answers the agent at once and takes the card away,
// rather than holding the call until the card times out.
func TestCommandEndWithdrawsItsCards(t *testing.T) {
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "withdraw")
	r := call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", unanswered}})
	if !strings.Contains(clitest.Text(t, r), "gave-up") {
		t.Fatalf("the command did not run to its end: %s", clitest.Text(t, r))
	}
	expectWithdrawn(t, d)
}

// TestRunEndWithdrawsItsCards: the same for a confined run, whose
// session ends with it.
func TestRunEndWithdrawsItsCards(t *testing.T) {
	d := clitest.Start(t)
	out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", unanswered)
	if code != 0 || !strings.Contains(out, "gave-up") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	expectWithdrawn(t, d)
	ended := d.Events("kind=session.end")
	if len(ended) != 1 {
		t.Errorf("the run's session did not end when it did: %v", ended)
	}
}

// expectWithdrawn checks that the one network card raised is withdrawn,
// not left waiting or timed out.
func expectWithdrawn(t *testing.T, d *clitest.Daemon) {
	t.Helper()
	if p := d.Pending(); len(p) != 0 {
		t.Errorf("cards still wait for the person: %+v", p)
	}
	asked := d.Events("kind=approval.requested")
	withdrawn := d.Events("kind=approval.withdrawn")
	if len(asked) != 1 || len(withdrawn) != 1 {
		t.Fatalf("want one card, withdrawn; asked %v, withdrawn %v", kinds(asked), kinds(withdrawn))
	}
	if p, _ := withdrawn[0]["payload"].(map[string]any); p["message"] != "the command ended before anyone answered" {
		t.Errorf("the card was withdrawn saying %v", p["message"])
	}
	if got := kinds(d.Events("")); slices.Contains(got, "approval.expired") {
		t.Errorf("a card expired: %v", got)
	}
}
