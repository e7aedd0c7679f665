//go:build !linux

package agentbox

import (
	"context"
	"errors"
	"net"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Box is a running confined agent; only Linux starts one.
type Box struct {
	Proxy, Agent net.Listener
	Hosts        map[int][]net.Listener
}

// Start needs bubblewrap, which is Linux's (on macOS, see
// seatbelt.AgentProfile: built and unit-tested, not yet started here).
func Start(context.Context, Spec) (*Box, error) {
	return nil, errors.New("confining a whole agent needs Linux with bubblewrap")
}

// Early is Linux's (see Prepare).
type Early struct{}

// Prepare starts nothing here.
func Prepare(Spec) *Early { return nil }

// Discard: nothing to end.
func (e *Early) Discard() {}

func (b *Box) PID() int              { return 0 }
func (b *Box) Kill()                 {}
func (b *Box) Done() <-chan struct{} { return nil }
func (b *Box) Wait() (int, error)    { return -1, errors.New("no sandbox") }

// Violations: nothing runs, so nothing was put back.
func (b *Box) Violations() []sandbox.Violation { return nil }
