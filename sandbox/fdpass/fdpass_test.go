//go:build linux

package fdpass

import (
	"errors"
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// ReceiveOne takes the one descriptor sent, and tells a sender that
// closed its end without sending (a sandbox that failed to start) from
// a message that came without one.
func TestReceiveOne(t *testing.T) {
	pair := func() (int, int) {
		p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		return p[0], p[1]
	}

	ours, theirs := pair()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Send(theirs, []byte("x"), int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	fd, n, err := ReceiveOne(ours, make([]byte, 1))
	if err != nil || n != 1 {
		t.Fatalf("sent one descriptor: fd %d, n %d, %v", fd, n, err)
	}
	unix.Close(fd)
	unix.Close(ours)
	unix.Close(theirs)

	ours, theirs = pair()
	if _, err := unix.Write(theirs, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReceiveOne(ours, make([]byte, 1)); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("a message without a descriptor: %v, want an error that is not EOF", err)
	}
	unix.Close(ours)
	unix.Close(theirs)

	ours, theirs = pair()
	unix.Close(theirs)
	if _, _, err := ReceiveOne(ours, make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the sender closed: %v, want EOF", err)
	}
	unix.Close(ours)
}
