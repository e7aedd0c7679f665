package session

import "context"

// Resources is what the call pipeline holds for this session (its opened
// sandbox, a container, its staging directory), released when the session
// idles or ends. The pipeline keeps it here so that whoever idles or ends
// the session releases it, without this package knowing what it is.
type Resources interface {
	// Idle releases what the next call can build again.
	Idle(ctx context.Context)
	// Close releases everything, and nothing is opened after it: the
	// session is over.
	Close(ctx context.Context)
}

// Resources returns what the pipeline holds for this session, made by
// open on its first use (open must not call back into s). One made after
// the session closed is closed at once, since nothing else would release
// what it opened.
func (s *State) Resources(open func() Resources) Resources {
	s.mu.Lock()
	held, fresh := s.held, false
	if held == nil {
		held, fresh = open(), true
		s.held = held
	}
	closed := s.closed
	s.mu.Unlock()
	if fresh && closed {
		// It holds nothing yet, so closing it waits on nothing.
		held.Close(context.Background())
	}
	return held
}
