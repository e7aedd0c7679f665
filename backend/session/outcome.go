package session

import (
	"fmt"
	"strings"
)

// Outcome is how one call ended. Every call that ends ends in exactly one,
// which the session's counters count (Counters.Outcomes), the audit
// records on the call's last row (its "outcome") and the CLI and the UI
// name in plain words (End.Label).
type Outcome string

const (
	OutcomeOK         Outcome = "ok"          // it ran and did what it was asked, changing nothing that needed landing
	OutcomeApplied    Outcome = "applied"     // it ran, and its changes are in the workspace
	OutcomeFailed     Outcome = "failed"      // it ran and failed (its exit status, a tool error)
	OutcomeDenied     Outcome = "denied"      // the person or policy refused it before it ran
	OutcomeDiscarded  Outcome = "discarded"   // it ran staged, and its changes were thrown away unapplied
	OutcomeRolledBack Outcome = "rolled_back" // it ran in the workspace, and its changes were undone
	OutcomeRefused    Outcome = "refused"     // Gatehouse did not run it: bad arguments, a spent budget, a failed checkpoint
	OutcomeStopped    Outcome = "stopped"     // the person's kill switch stopped it, or refused it while on
	OutcomeCleared    Outcome = "cleared"     // cleared for the agent's own tool, which ran it itself
)

// Outcomes lists them in the order summaries name them.
var Outcomes = []Outcome{OutcomeOK, OutcomeApplied, OutcomeCleared, OutcomeFailed, OutcomeDenied,
	OutcomeDiscarded, OutcomeRolledBack, OutcomeRefused, OutcomeStopped}

// Who decided a call's fate, in End.By.
const (
	ByPerson     = "person"
	ByPolicy     = "policy"
	ByGatehouse  = "gatehouse"   // a budget, an unreadable change set, an ended session
	ByTimeout    = "timeout"     // the card waited past the approval timeout
	ByKillSwitch = "kill_switch" // the person's kill switch
	ByAgent      = "agent"       // the agent cancelled the call while its card waited
)

// End is a call's outcome with what a person needs to read it.
type End struct {
	Outcome Outcome `json:"outcome"`
	// By is who decided a denial, a discard or a rollback (By* above).
	By string `json:"by,omitempty"`
	// Message is what the person wrote with their deny.
	Message string `json:"message,omitempty"`
	// ExitCode is a command's own exit status, when it exited.
	ExitCode *int `json:"exit_code,omitempty"`
	// Killed is why Gatehouse stopped a command (timeout, cpu, …).
	Killed string `json:"killed,omitempty"`
	// Held: its changes waited on a card for the person.
	Held bool `json:"held,omitempty"`
	// Applied: a failed command's changes landed all the same.
	Applied bool `json:"applied,omitempty"`
}

// Label names the outcome for the person, who is "you":
// "applied after your approval", "discarded by you: keep history",
// "failed (exit 2)". The UI's outcomeLabel (frontend/src/lib/outcome.ts)
// says the same.
func (e End) Label() string {
	switch e.Outcome {
	case OutcomeOK:
		return "ok"
	case OutcomeApplied:
		if e.Held {
			return "applied after your approval"
		}
		return "applied"
	case OutcomeCleared:
		return "cleared; the agent's own tool ran it"
	case OutcomeFailed:
		s := "failed"
		switch {
		case e.Killed != "":
			s += " (stopped: " + e.Killed + ")"
		case e.ExitCode != nil:
			s += fmt.Sprintf(" (exit %d)", *e.ExitCode)
		}
		if e.Applied {
			s += ", its changes applied"
		}
		return s
	case OutcomeDenied:
		return decided("denied", e)
	case OutcomeDiscarded:
		return decided("discarded", e)
	case OutcomeRolledBack:
		return decided("rolled back", e)
	case OutcomeRefused:
		return "refused by Gatehouse"
	case OutcomeStopped:
		return "stopped by your kill switch"
	}
	return string(e.Outcome)
}

// decided is what of denied, discarded or rolled back, and who decided.
func decided(what string, e End) string {
	switch e.By {
	case ByPerson:
		if m := strings.TrimSpace(e.Message); m != "" {
			return what + " by you: " + m
		}
		return what + " by you"
	case ByPolicy:
		return what + " by policy"
	case ByTimeout:
		return what + ": nobody decided in time"
	case ByKillSwitch:
		return what + ": your kill switch stopped it"
	case ByAgent:
		return what + ": the agent cancelled it"
	}
	return what + " by Gatehouse"
}

// Tally counts calls by outcome; each ended call is in exactly one field.
type Tally struct {
	OK         int64 `json:"ok"`
	Applied    int64 `json:"applied"`
	Cleared    int64 `json:"cleared"`
	Failed     int64 `json:"failed"`
	Denied     int64 `json:"denied"`
	Discarded  int64 `json:"discarded"`
	RolledBack int64 `json:"rolled_back"`
	Refused    int64 `json:"refused"`
	Stopped    int64 `json:"stopped"`
}

// field is o's counter.
func (t *Tally) field(o Outcome) *int64 {
	switch o {
	case OutcomeOK:
		return &t.OK
	case OutcomeApplied:
		return &t.Applied
	case OutcomeCleared:
		return &t.Cleared
	case OutcomeFailed:
		return &t.Failed
	case OutcomeDenied:
		return &t.Denied
	case OutcomeDiscarded:
		return &t.Discarded
	case OutcomeRolledBack:
		return &t.RolledBack
	case OutcomeRefused:
		return &t.Refused
	case OutcomeStopped:
		return &t.Stopped
	}
	return nil
}

// Of is how many calls ended in o.
func (t Tally) Of(o Outcome) int64 {
	if p := t.field(o); p != nil {
		return *p
	}
	return 0
}

// Total is how many calls have ended.
func (t Tally) Total() int64 {
	var n int64
	for _, o := range Outcomes {
		n += t.Of(o)
	}
	return n
}

func (t *Tally) add(d Tally) {
	for _, o := range Outcomes {
		*t.field(o) += d.Of(o)
	}
}

// CountEnd is the counters one call adds when it ends in e: its outcome, and
// the older totals that predate outcomes (denied: refused by the person or
// policy, before or after it ran; errors: failed, refused or stopped).
func CountEnd(e End) Counters {
	var c Counters
	if p := c.Outcomes.field(e.Outcome); p != nil {
		*p = 1
	}
	switch e.Outcome {
	case OutcomeDenied, OutcomeDiscarded, OutcomeRolledBack:
		c.Denied = 1
	case OutcomeFailed, OutcomeRefused, OutcomeStopped:
		c.Errors = 1
	}
	return c
}
