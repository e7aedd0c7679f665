package agentbox

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
)

// TestHandedOutBeforeTheSandboxExited: a command that ends at once
// leaves its listeners on the hand-off socket and the sandbox gone by
// the time they are read; it ran, so Start must not say it did not.
func TestHandedOutBeforeTheSandboxExited(t *testing.T) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		f, err := ln.(*net.TCPListener).File()
		if err != nil {
			t.Fatal(err)
		}
		if err := fdpass.Send(pair[1], []byte{0}, int(f.Fd())); err != nil {
			t.Fatal(err)
		}
		f.Close()
		ln.Close()
	}
	unix.Close(pair[1]) // the sandbox is gone
	exited := make(chan struct{})
	close(exited)
	got, err := receiveListeners(t.Context(), pair[0], exited, 0)
	lns := got.lns
	if err != nil {
		t.Fatalf("listeners handed out before the exit: %v", err)
	}
	for _, ln := range lns {
		ln.Close()
	}
}

// TestExitedBeforeTheHandOff: a sandbox that ended before handing
// anything out did not start its command.
func TestExitedBeforeTheHandOff(t *testing.T) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	unix.Close(pair[1])
	exited := make(chan struct{})
	close(exited)
	if _, err := receiveListeners(t.Context(), pair[0], exited, 0); err == nil {
		t.Fatal("no error for a sandbox that handed nothing out")
	}
}
