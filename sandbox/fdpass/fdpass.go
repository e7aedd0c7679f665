// Package fdpass moves descriptors over unix sockets (SCM_RIGHTS): the
// daemon and a zygote, a run's stages and their supervisor, each pass
// descriptors the same way.
package fdpass

import (
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// ParseRights reads the descriptors of SCM_RIGHTS messages in oob: the
// ones already read are returned with an error, for the caller to close.
func ParseRights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		f, err := unix.ParseUnixRights(&m)
		if err != nil {
			return fds, err
		}
		fds = append(fds, f...)
	}
	return fds, nil
}

// Send sends b and descriptors fds over sock, in one message.
func Send(sock int, b []byte, fds ...int) error {
	return unix.Sendmsg(sock, b, unix.UnixRights(fds...), nil, 0)
}

// Receive reads one message carrying 1 to max descriptors from sock into
// b, and returns them.
func Receive(sock int, b []byte, max int) ([]int, error) {
	oob := make([]byte, unix.CmsgSpace(4*max))
	n, oobn, _, _, err := unix.Recvmsg(sock, b, oob, 0)
	if err != nil {
		return nil, err
	}
	fds, err := ParseRights(oob[:oobn])
	if err == nil && n == 0 && len(fds) == 0 {
		return nil, io.EOF // the sender closed its end without sending
	}
	if err != nil || len(fds) == 0 || len(fds) > max {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("want 1 to %d descriptors, got %d: %v", max, len(fds), err)
	}
	return fds, nil
}

// ReceiveOne reads one message carrying exactly one descriptor from sock
// into b, and returns the descriptor and the message's length.
func ReceiveOne(sock int, b []byte) (fd, n int, err error) {
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(sock, b, oob, 0)
	if err != nil {
		return -1, 0, err
	}
	fds, err := ParseRights(oob[:oobn])
	if err == nil && n == 0 && len(fds) == 0 {
		return -1, 0, io.EOF // the sender closed its end without sending
	}
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, 0, fmt.Errorf("want one descriptor, got %d: %v", len(fds), err)
	}
	return fds[0], n, nil
}
