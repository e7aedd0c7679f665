package effect

import "github.com/gatehouse-dev/gatehouse/backend/approval"

// Outcome is what became of a command's changes.
type Outcome string

const (
	OutcomeUnchanged  Outcome = "unchanged"   // it changed nothing
	OutcomeApplied    Outcome = "applied"     // its changes are in the workspace
	OutcomeDiscarded  Outcome = "discarded"   // its changes were thrown away; the workspace was never touched
	OutcomeRolledBack Outcome = "rolled_back" // it ran unstaged, and its changes were undone
)

// Result is a command result's "effect" part, which tells the agent what
// happened to the command's changes.
type Result struct {
	Outcome   Outcome  `json:"outcome"`
	Staged    bool     `json:"staged"`
	Held      bool     `json:"held"` // the person was asked
	Created   int      `json:"created"`
	Modified  int      `json:"modified"`
	Deleted   int      `json:"deleted"`
	Reason    string   `json:"reason,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"` // paths where the person's version was kept
	KeptOut   []string `json:"kept_out,omitempty"`  // protected paths the run wrote, never applied
	Note      string   `json:"note,omitempty"`      // one sentence for the agent
	// By is who refused changes that were discarded or rolled back
	// (person, policy, gatehouse, timeout, kill_switch, agent: the
	// session.By* names), and Message what the person wrote with a deny.
	By      string `json:"decided_by,omitempty"`
	Message string `json:"message,omitempty"`
	// Warning: it landed, but the checkpoint after it failed. It goes to
	// the result's own warning, not into the effect part.
	Warning string `json:"-"`
}

// Add appends a sentence to the note.
func (e *Result) Add(s string) {
	if e.Note != "" {
		e.Note += " "
	}
	e.Note += s
}

// NotApproved says how a held effect ended without an allow.
func NotApproved(d approval.Decision, err error) string {
	switch {
	case err != nil:
		return "no decision came (" + err.Error() + "), so they were discarded"
	case d.By == "human" && d.Message != "":
		return "the person discarded them: " + d.Message
	case d.By == "human":
		return "the person discarded them"
	case d.By == "system:kill":
		return "the person's kill switch stopped everything, so they were discarded"
	case d.By == "system:timeout":
		return "nobody decided in time, so they were discarded"
	}
	return "they were discarded (" + d.By + ")"
}
