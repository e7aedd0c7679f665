package call

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// State is one agent session's view: its live record, workspace, sandbox
// session and the grants the person gave for this session.
type State struct {
	Live       *session.Live
	Workspaces []string
	Roots      *workspace.Roots
	Elicit     func(ctx context.Context, question string) (string, error) // nil when the client cannot
	// NoSessionGrants is set for sessions that cannot be told apart from
	// the client's other runs (a stateless client that names no run): an
	// "allow for this session" would reach those runs too, so it is
	// offered as "once" instead.
	NoSessionGrants bool

	mu      sync.Mutex
	last    time.Time // the last call's start
	idle    bool      // released while its client was quiet (see Idle)
	onWake  func()    // called when a call arrives on an idle session
	grants  []policy.Rule
	sandbox sandbox.Session
	limits  session.Limits
	limitMu sync.Mutex
	closed  bool
	// trackedDirs remembers which pass-through candidates git tracks.
	trackedDirs map[string]bool
	// stageRoot is the session's staging directory, removed when it ends.
	stageRoot string
}

// NewState makes a session's state with the given budgets.
func NewState(live *session.Live, workspaces []string, roots *workspace.Roots, limits session.Limits) *State {
	return &State{Live: live, Workspaces: workspaces, Roots: roots, limits: limits, last: time.Now()}
}

// touch marks a call's arrival; a session that was idle wakes.
func (s *State) touch() {
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

// AddGrant remembers an "allow for this session".
func (s *State) AddGrant(r policy.Rule) {
	s.mu.Lock()
	s.grants = append(s.grants, r)
	s.mu.Unlock()
}

// policySession is what policy needs of the session for a call to tool.
// A mode that does not parse fails closed: the call is refused rather
// than run under a default.
func (s *State) policySession(home string, sandboxed bool, tool string) (policy.Session, error) {
	info := s.Live.Snapshot()
	mode, err := policy.ParseMode(info.Mode)
	if err != nil {
		return policy.Session{}, toolErrorf(err, "This session's mode %q is not one Gatehouse knows, so it refused the call; the person can set the mode again.", info.Mode)
	}
	var protected []string
	if policy.ReadsProtected(tool) {
		protected = protectedPaths(s.Workspaces) // reads files: not under the lock
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return policy.Session{Mode: mode, Workspaces: s.Workspaces, Home: home, Grants: append([]policy.Rule(nil), s.grants...), Goal: info.Goal, Sandboxed: sandboxed,
		Protected: protected}, nil
}

// Idle releases what the session holds while its client is away (the warm
// sandbox, a container); the next call builds them again.
func (s *State) Idle(ctx context.Context) {
	s.mu.Lock()
	sb := s.sandbox
	s.sandbox = nil
	s.idle = true
	s.mu.Unlock()
	if sb != nil {
		_ = sb.Close(ctx)
	}
}

// Close releases the session's sandbox (the container, if any).
func (s *State) Close(ctx context.Context) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	sb, root := s.sandbox, s.stageRoot
	s.sandbox = nil
	s.mu.Unlock()
	if sb != nil {
		_ = sb.Close(ctx)
	}
	if s.Roots != nil {
		_ = s.Roots.Close()
	}
	if root != "" {
		// Its runs are over: each removed its own layers, this is the rest.
		_ = os.RemoveAll(root)
	}
}
