//go:build integration

package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// The local decision wins a race: a phone's decision waiting out its
// window ([public] local_wins_ms, widened here so the test need not
// race the clock) is replaced by one made on the computer; the phone is
// told, the agent gets the computer's decision, and the audit keeps the
// phone's as approval.overridden.
func TestPublicLocalDecisionWinsARace(t *testing.T) {
	d := publicDaemon(t, "[public]\nlocal_wins_ms = 60000\n")
	o := publicStart(t, d)
	ph := newPhone(t)
	if code, _, body := ph.do("GET", o.Link, "", nil); code != 200 {
		t.Fatalf("opening the link: %d %s", code, body)
	}
	c, done := ph.askCard(d, o.URL, "raced", "raced")
	type answer struct {
		code int
		body string
	}
	told := make(chan answer, 1)
	go func() {
		code, body := ph.decide(o.URL, c, "allow")
		told <- answer{code, body}
	}()
	clitest.WaitFor(t, 10*time.Second, "the phone's decision to wait for the computer's", func() bool {
		return strings.Contains(d.Log(), `msg="a device's decision waits for one made on the computer" approval=`+c.ID)
	})
	if code := d.Decide(c.ID, "deny", "once", "decided at the desk"); code != 200 {
		t.Fatalf("the computer's decision inside the phone's window: %d", code)
	}
	if a := <-told; a.code != 410 || !strings.Contains(a.body, "decided on the computer") {
		t.Fatalf("the phone was told %d %s", a.code, a.body)
	}
	if r := <-done; r.err != nil || !r.res.IsError || !strings.Contains(clitest.Text(t, r.res), "decided at the desk") {
		t.Fatalf("the agent did not get the computer's deny: %+v %v", r.res, r.err)
	}
	var decided, overridden []map[string]any
	for _, e := range d.Events("kind=approval.") {
		p, _ := e["payload"].(map[string]any)
		if p["approval"] != c.ID {
			continue
		}
		switch e["kind"] {
		case "approval.decided":
			decided = append(decided, p)
		case "approval.overridden":
			overridden = append(overridden, p)
		}
	}
	if len(decided) != 1 || decided[0]["status"] != "denied" || decided[0]["exposure"] != nil {
		t.Fatalf("approval.decided rows %v, want the computer's deny alone", decided)
	}
	if len(overridden) != 1 || overridden[0]["exposure"] != o.ID || overridden[0]["device"] != "Phone/1.0 (handset.example.test)" ||
		overridden[0]["allow"] != true || overridden[0]["by"] != "human" {
		t.Fatalf("approval.overridden rows %v, want the phone's allow", overridden)
	}
}
