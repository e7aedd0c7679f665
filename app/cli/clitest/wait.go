package clitest

import (
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// WaitFor polls cond until it holds or timeout passes, then fails the test
// naming what it waited for. Tests wait for conditions, never for time.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	waitfor.For(t, timeout, what, cond)
}

// CardWait is how long a test waits for a card it has just caused: the
// call reaches the daemon, is decided "ask" and is filed. One figure, so
// a slower machine needs one change.
const CardWait = 30 * time.Second

// Pending lists the approvals waiting now.
func (d *Daemon) Pending() []Approval {
	d.t.Helper()
	_, body := d.Request("GET", "/api/v1/approvals", nil, d.Control())
	var out struct {
		Approvals []Approval `json:"approvals"`
	}
	if err := jsonUnmarshal(body, &out); err != nil {
		d.t.Fatalf("approvals: %v %s", err, body)
	}
	return out.Approvals
}
