package session

import (
	"testing"
)

func TestEndLabel(t *testing.T) {
	two, zero := 2, 0
	tests := []struct {
		end  End
		want string
	}{
		{End{Outcome: OutcomeOK}, "ok"},
		{End{Outcome: OutcomeApplied}, "applied"},
		{End{Outcome: OutcomeApplied, Held: true}, "applied after your approval"},
		{End{Outcome: OutcomeCleared}, "cleared; the agent's own tool ran it"},
		{End{Outcome: OutcomeFailed, ExitCode: &two}, "failed (exit 2)"},
		{End{Outcome: OutcomeFailed, ExitCode: &two, Applied: true}, "failed (exit 2), its changes applied"},
		{End{Outcome: OutcomeFailed, Killed: "timeout", ExitCode: &zero}, "failed (stopped: timeout)"},
		{End{Outcome: OutcomeFailed}, "failed"},
		{End{Outcome: OutcomeDenied, By: ByPerson, Message: "not now"}, "denied by you: not now"},
		{End{Outcome: OutcomeDenied, By: ByPolicy}, "denied by policy"},
		{End{Outcome: OutcomeDenied, By: ByTimeout}, "denied: nobody decided in time"},
		{End{Outcome: OutcomeDenied, By: ByAgent}, "denied: the agent cancelled it"},
		{End{Outcome: OutcomeDiscarded, By: ByPerson, Message: " keep history "}, "discarded by you: keep history"},
		{End{Outcome: OutcomeDiscarded, By: ByPerson}, "discarded by you"},
		{End{Outcome: OutcomeDiscarded, By: ByPolicy, Message: "ignored: only the person's"}, "discarded by policy"},
		{End{Outcome: OutcomeDiscarded, By: ByGatehouse}, "discarded by Gatehouse"},
		{End{Outcome: OutcomeDiscarded, By: ByKillSwitch}, "discarded: your kill switch stopped it"},
		{End{Outcome: OutcomeDiscarded}, "discarded by Gatehouse"},
		{End{Outcome: OutcomeRolledBack, By: ByPerson, Message: "no"}, "rolled back by you: no"},
		{End{Outcome: OutcomeRolledBack, By: ByPolicy}, "rolled back by policy"},
		{End{Outcome: OutcomeRefused}, "refused by Gatehouse"},
		{End{Outcome: OutcomeStopped, By: ByKillSwitch}, "stopped by your kill switch"},
		{End{Outcome: "something new"}, "something new"},
	}
	for _, tt := range tests {
		if got := tt.end.Label(); got != tt.want {
			t.Errorf("%+v: Label() = %q, want %q", tt.end, got, tt.want)
		}
	}
}

// TestCountEndAddsUp: every outcome lands in exactly one bucket, and the
// older totals count a call at most once.
func TestCountEndAddsUp(t *testing.T) {
	var total Counters
	for _, o := range Outcomes {
		c := CountEnd(End{Outcome: o})
		if c.Outcomes.Total() != 1 || c.Outcomes.Of(o) != 1 {
			t.Errorf("%s: counted %+v, want once in its own bucket", o, c.Outcomes)
		}
		if c.Denied+c.Errors > 1 {
			t.Errorf("%s: denied %d and errors %d", o, c.Denied, c.Errors)
		}
		c.Calls = 1
		total.add(c)
	}
	if total.Outcomes.Total() != total.Calls || total.Calls != int64(len(Outcomes)) {
		t.Fatalf("%d calls, %d outcomes: %+v", total.Calls, total.Outcomes.Total(), total.Outcomes)
	}
	if c := CountEnd(End{Outcome: "unknown"}); c.Outcomes.Total() != 0 {
		t.Fatalf("an unknown outcome was counted: %+v", c)
	}
}

// TestOutcomesPersist: a session's outcomes survive its end and a flush,
// and a session recorded before outcomes existed reads as none.
func TestOutcomesPersist(t *testing.T) {
	ctx := t.Context()
	m, _ := newManager(t)
	l, err := m.Start(ctx, StartRequest{Client: "c"})
	if err != nil {
		t.Fatal(err)
	}
	m.Count(l.ID(), Counters{Calls: 3})
	for _, e := range []End{{Outcome: OutcomeOK}, {Outcome: OutcomeDiscarded, By: ByPerson}, {Outcome: OutcomeFailed}} {
		m.Count(l.ID(), CountEnd(e))
	}
	m.Flush(ctx)
	var raw string
	if err := m.db.QueryRowContext(ctx, `SELECT outcomes FROM sessions WHERE id=?`, l.ID()).Scan(&raw); err != nil || raw == "{}" {
		t.Fatalf("flushed outcomes %q %v", raw, err)
	}
	m.End(ctx, l.ID(), "done")
	got, err := m.Lookup(ctx, l.ID())
	if err != nil {
		t.Fatal(err)
	}
	want := Tally{OK: 1, Discarded: 1, Failed: 1}
	if got.Outcomes != want || got.Denied != 1 || got.Errors != 1 || got.Outcomes.Total() != got.Calls {
		t.Fatalf("after the end: %+v", got.Counters)
	}
	if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET outcomes='{}' WHERE id=?`, l.ID()); err != nil {
		t.Fatal(err)
	}
	if got, err := m.Lookup(ctx, l.ID()); err != nil || got.Outcomes != (Tally{}) {
		t.Fatalf("an older session: %+v %v", got.Outcomes, err)
	}
}
