package egress

import "context"

// A Decider says whether a run may connect to a domain. The proxy asks it
// at most once per run for each domain and port the run tries, before the
// name is resolved, and keeps the answer for the rest of the run; what
// lasts longer (this session, always) is the Decider's to remember, and it
// may block while the person decides. An error denies.
type Decider interface {
	Decide(ctx context.Context, q Question) (Answer, error)
}

// Question is one domain and port a run wants.
type Question struct {
	Domain  string   // lower case, no trailing dot
	Port    int      // the port asked for
	Session string   // the session the run belongs to
	Call    string   // the tool call that started the run
	Argv    []string // the command that connects
	// Process is the process that connects, as the run's forwarder named
	// it (a confined agent's: the agent or one of its servers); "" when
	// the run is one command.
	Process string
	// Listed: Domain is "localhost" and Port one the person listed in the
	// config's host_ports, which needs no card (a rule may still deny it).
	Listed bool
}

// Answer is a Decider's verdict.
type Answer struct {
	Allow bool
	// Reason is one sentence the command is told when denied.
	Reason string
}
