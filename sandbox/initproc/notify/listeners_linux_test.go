package notify

import (
	"encoding/binary"
	"net"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// sockaddr is the kernel's form of ip:port.
func sockaddr(ip string, port int) []byte {
	a := net.ParseIP(ip)
	if !strings.Contains(ip, ":") {
		b := make([]byte, unix.SizeofSockaddrInet4)
		binary.LittleEndian.PutUint16(b, unix.AF_INET)
		binary.BigEndian.PutUint16(b[2:], uint16(port))
		copy(b[4:], a.To4())
		return b
	}
	b := make([]byte, unix.SizeofSockaddrInet6)
	binary.LittleEndian.PutUint16(b, unix.AF_INET6)
	binary.BigEndian.PutUint16(b[2:], uint16(port))
	copy(b[8:], a.To16())
	return b
}

// Where a run's own listener can be: this machine's loopback, or the
// unspecified address connect(2) takes for it; never another host.
func TestLocalPort(t *testing.T) {
	for _, tc := range []struct {
		addr string
		port int
		want bool
	}{
		{"127.0.0.1", 8080, true},
		{"127.0.0.2", 8080, true},
		{"0.0.0.0", 8080, true},
		{"::1", 8080, true},
		{"::", 8080, true},
		{"::ffff:127.0.0.1", 8080, true},
		{"127.0.0.1", 0, false},
		{"192.0.2.1", 8080, false},
		{"::ffff:192.0.2.1", 8080, false},
		{"fd00::1", 8080, false},
		{"::2", 8080, false},
	} {
		port, ok := localPort(sockaddr(tc.addr, tc.port))
		if ok != tc.want || ok && port != tc.port {
			t.Errorf("%s:%d: %d %v, want %v", tc.addr, tc.port, port, ok, tc.want)
		}
	}
	if _, ok := localPort([]byte{2, 0, 0x1f, 0x90, 127}); ok {
		t.Error("a short IPv4 address was taken")
	}
	if _, ok := localPort(sockaddr("::1", 80)[:20]); ok {
		t.Error("a short IPv6 address was taken")
	}
	unixAddr := []byte{1, 0, '/', 't', 'm', 'p', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, ok := localPort(unixAddr); ok {
		t.Error("a unix socket's address was taken")
	}
}

// /proc/net/tcp's lines: only LISTEN entries count, with their port and
// inode.
func TestListenEntry(t *testing.T) {
	for _, tc := range []struct {
		line  string
		port  int
		inode uint64
		ok    bool
	}{
		{"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0", 8080, 123456, true},
		{"   1: 00000000000000000000000001000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 42 1 0000000000000000 100 0 0 10 0", 80, 42, true},
		{"   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 20 4 30 10 -1", 0, 0, false},
		{"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode", 0, 0, false},
		{"   3: 0100007F 00000000:0000 0A", 0, 0, false},
	} {
		port, inode, ok := listenEntry([]byte(tc.line))
		if port != tc.port || inode != tc.inode || ok != tc.ok {
			t.Errorf("%q: %d %d %v", tc.line, port, inode, ok)
		}
	}
}

// A port is the run's while every socket listening there is its own.
func TestListenersHold(t *testing.T) {
	own, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	f, err := own.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := &listeners{}
	port := func(ln net.Listener) int { return ln.Addr().(*net.TCPAddr).Port }
	if l.hold(port(own)) {
		t.Error("an empty set holds a port")
	}
	l.add(int(f.Fd()))
	if !l.hold(port(own)) {
		t.Error("the run's own listener's port is not held")
	}
	if l.hold(port(other)) {
		t.Error("another's listener's port is held")
	}
	own.Close()
	f.Close()
	if l.hold(port(own)) {
		t.Error("a port let go is still held")
	}
}

// The kernel's socket diagnostics find the one listener on a port, by
// its inode, and every listener without a port.
func TestListenersOn(t *testing.T) {
	var lns []net.Listener
	for _, network := range []string{"tcp4", "tcp6", "tcp4"} {
		addr := "127.0.0.1:0"
		if network == "tcp6" {
			addr = "[::1]:0"
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		lns = append(lns, ln)
	}
	for _, ln := range lns[:2] {
		f, err := ln.(*net.TCPListener).File()
		if err != nil {
			t.Fatal(err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			t.Fatal(err)
		}
		f.Close()
		var got []uint64
		if err := listenersOn(ln.Addr().(*net.TCPAddr).Port, func(i uint64) { got = append(got, i) }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != st.Ino {
			t.Errorf("%s: %v, want [%d]", ln.Addr(), got, st.Ino)
		}
	}
	all := 0
	if err := listenersOn(0, func(uint64) { all++ }); err != nil || all < len(lns) {
		t.Errorf("every listener: %d %v", all, err)
	}
}
