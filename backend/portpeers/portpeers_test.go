package portpeers

import (
	"net"
	"os"
	"runtime"
	"testing"
)

func TestParseAddr(t *testing.T) {
	for _, c := range []struct {
		in   string
		ip   string
		port int
	}{
		{"0100007F:1D21", "127.0.0.1", 7457},
		{"00000000000000000000000001000000:0050", "::1", 80},
	} {
		ip, port, err := parseAddr(c.in)
		if err != nil || ip.String() != c.ip || port != c.port {
			t.Errorf("parseAddr(%q) = %v %d %v", c.in, ip, port, err)
		}
	}
}

// A connection this test holds to a listener it opened is found, and
// named as this process.
func TestFindNamesTheHolder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("skipped: it reads /proc, which only Linux has")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			buf := make([]byte, 1)
			c.Read(buf)
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peers, err := Find(ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	if len(peers) != 1 || peers[0].PID != os.Getpid() || peers[0].From != c.LocalAddr().String() {
		t.Fatalf("peers %+v; want this process at %s", peers, c.LocalAddr())
	}
}
