package sandbox

import "context"

// Backend is one way of confining processes (bubblewrap, Landlock,
// Seatbelt, a container, or none).
type Backend interface {
	// Name is the backend's config name: bwrap, landlock, seatbelt,
	// container or none.
	Name() string
	// Open prepares a session. For process-based backends it only
	// validates; the container backend starts its container here.
	Open(ctx context.Context, s SessionSpec) (Session, error)
}

// Session runs commands for one agent session.
type Session interface {
	// Run executes spec and waits for it. Cancelling ctx kills the whole
	// process tree (SIGTERM, grace, SIGKILL) and Run returns the Result
	// with Killed set. Spec errors are returned before anything runs.
	Run(ctx context.Context, spec Spec) (Result, error)
	// Close ends the session and releases what it holds.
	Close(ctx context.Context) error
}
