package initproc

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestListenAll: the proxy's socket first, then each host port at
// 127.0.0.1 and ::1, all listening.
func TestListenAll(t *testing.T) {
	fds, err := listenAll(&Net{Mode: NetProxy, Listen: "127.0.0.1:0", HostPorts: []int{0}})
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if err != nil {
		t.Fatal(err)
	}
	want := []int{unix.AF_INET, unix.AF_INET, unix.AF_INET6}
	if len(fds) != len(want) {
		t.Fatalf("%d sockets, want %d", len(fds), len(want))
	}
	for i, fd := range fds {
		sa, err := unix.Getsockname(fd)
		if err != nil {
			t.Fatal(err)
		}
		family := unix.AF_INET
		if _, ok := sa.(*unix.SockaddrInet6); ok {
			family = unix.AF_INET6
		}
		if family != want[i] {
			t.Errorf("socket %d is family %d, want %d", i, family, want[i])
		}
		if v, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); v != 1 {
			t.Errorf("socket %d is not listening", i)
		}
	}
}
