package session

import (
	"context"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// State is one agent session as its calls see it: its live record, its
// workspaces, the grants the person gave for this session, its budgets
// and when it was last heard from. What the call pipeline opens for the
// session (its sandbox) the pipeline keeps itself, in the state's
// Resources, which the state releases when the session idles or ends.
type State struct {
	Live       *Live
	Workspaces []string
	Roots      *workspace.Roots
	Elicit     func(ctx context.Context, question string) (string, error) // nil when the client cannot
	// NoSessionGrants is set for sessions that cannot be told apart from
	// the client's other runs (a stateless client that names no run): an
	// "allow for this session" would reach those runs too, so it is
	// offered as "once" instead.
	NoSessionGrants bool
	// Backend confines the agent process itself in a whole-agent run
	// (landlock, bwrap, container); "" when the agent runs unconfined.
	// Its own tools meet that sandbox's limits.
	Backend string
	// Tmp is where the session's temporary directory goes (MakeTmp), ""
	// for none.
	Tmp string

	mu     sync.Mutex
	last   time.Time // the last call's start
	idle   bool      // released while its client was quiet (see Idle)
	onWake func()    // called when a call arrives on an idle session
	grants []policy.Rule
	// readOnly are host paths the person showed this session's commands
	// read-only (a proposal card's "for this session").
	readOnly []string
	limits   Limits
	held     Resources // the call pipeline's, made on first use
	closed   bool
}

// NewState makes a session's state with the given budgets.
func NewState(live *Live, workspaces []string, roots *workspace.Roots, limits Limits) *State {
	return &State{Live: live, Workspaces: workspaces, Roots: roots, limits: limits, last: time.Now()}
}

// Touch marks a call's arrival; a session that was idle wakes.
func (s *State) Touch() {
	s.mu.Lock()
	s.last = time.Now()
	wake := s.idle
	s.idle = false
	f := s.onWake
	s.mu.Unlock()
	if wake && f != nil {
		f()
	}
}

// LastCall is when the session's latest call arrived (or it started).
func (s *State) LastCall() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// OnWake sets what happens when a call arrives on an idle session.
func (s *State) OnWake(f func()) {
	s.mu.Lock()
	s.onWake = f
	s.mu.Unlock()
}

// Idle releases what the session holds while its client is away (the warm
// sandbox, a container); the next call builds them again.
func (s *State) Idle(ctx context.Context) {
	s.mu.Lock()
	held := s.held
	s.idle = true
	s.mu.Unlock()
	if held != nil {
		held.Idle(ctx)
	}
}

// Close releases what the session holds (its sandbox, the container if
// any, its workspace roots), once however many ends race.
func (s *State) Close(ctx context.Context) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	held := s.held
	s.mu.Unlock()
	if held != nil {
		held.Close(ctx)
	}
	if s.Roots != nil {
		_ = s.Roots.Close()
	}
	s.removeTmp()
}
