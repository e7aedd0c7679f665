package hookserver

import (
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/randid"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// ticketTTL bounds how long a rewritten command may take to come back;
// agents run it right after the hook answers.
const ticketTTL = 10 * time.Minute

// A ticket is a cleared shell command waiting for `gatehouse exec`: it
// runs once, exactly as cleared, in the run that cleared it.
type ticket struct {
	run     session.RunKey
	token   string // agent token id that asked
	command string
	cwd     string
	args    []byte // run_command arguments as cleared
	native  string
	cl      *call.Clearance
	// keepsCwd: the agent's shell keeps its directory across commands,
	// so the run reports where the command's shell ended.
	keepsCwd bool
}

// newTicketID names a cleared command: 128 random bits, so a ticket
// cannot be guessed.
func newTicketID() string { return randid.New("t", 16) }
