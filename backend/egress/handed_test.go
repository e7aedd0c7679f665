//go:build linux

package egress

import (
	"net"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// A connection handed over a run's unixpacket listener, with its
// process's name, is served as if it had connected to the proxy itself,
// and its record names that process; a message without a descriptor is
// dropped.
func TestHandedConnection(t *testing.T) {
	tsrv := tlsServer(t)
	f := newFixture(t, map[string]string{"pkgs.example.test:443": hostPort(tsrv)}, "pkgs.example.test:443")
	hand, err := net.Listen("unixpacket", filepath.Join(t.TempDir(), "hand.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer hand.Close()
	go f.run.ServeHanded(hand)
	// A forwarder: connections to its own listener are handed on.
	fwd, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer fwd.Close()
	go func() {
		for {
			c, err := fwd.Accept()
			if err != nil {
				return
			}
			up, err := net.DialUnix("unixpacket", nil, hand.Addr().(*net.UnixAddr))
			if err != nil {
				t.Error(err)
				return
			}
			file, _ := c.(*net.TCPConn).File()
			if _, _, err := up.WriteMsgUnix([]byte("process=pid 7: curl x"), unix.UnixRights(int(file.Fd())), nil); err != nil {
				t.Error(err)
			}
			file.Close()
			c.Close()
			up.Close()
		}
	}()
	// Nothing but a name: dropped.
	up, err := net.DialUnix("unixpacket", nil, hand.Addr().(*net.UnixAddr))
	if err != nil {
		t.Fatal(err)
	}
	up.Write([]byte("process=pid 8: nothing"))
	up.Close()

	f.addr = fwd.Addr().String()
	code, body, err := get(t, f.client(tsrv), "https://pkgs.example.test/index")
	if err != nil || code != 200 || body != "hello from pkgs.example.test" {
		t.Fatalf("https through a handed connection: %d %q %v", code, body, err)
	}
	waitfor.For(t, 10*time.Second, "the connection's record", func() bool { return len(f.rec.all()) > 0 })
	f.run.Close()
	recs := f.rec.all()
	if len(recs) != 1 || recs[0].Process != "pid 7: curl x" || recs[0].Domain != "pkgs.example.test" || recs[0].BytesDown == 0 {
		t.Errorf("records: %+v", recs)
	}
}
