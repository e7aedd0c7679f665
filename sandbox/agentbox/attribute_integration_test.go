//go:build integration && linux

package agentbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// A connection to the run's proxy names the process inside that made it,
// found through the sandbox's socket-diagnostics socket as the namespace's
// TCP table would find it.
func TestProcessNamesTheConnector(t *testing.T) {
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatalf("bubblewrap is needed: %v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed: %v", err)
	}
	self, ws := selfAndWorkspace(t)
	home := t.TempDir()
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	b, err := Start(t.Context(), Spec{
		Bwrap: bw, Init: self, Dir: ws, Home: home, Workspaces: []string{ws}, AgentPort: 47312,
		Argv: []string{bash, "-c", `exec 3<>/dev/tcp/127.0.0.1/3128; echo hi >&3; sleep 30 <&3`},
		Env:  []string{"PATH=/usr/bin:/bin"}, Stdin: devnull, Stdout: os.Stderr, Stderr: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { b.Kill(); b.Wait() }()
	_ = b.Proxy.(interface{ SetDeadline(time.Time) error }).SetDeadline(time.Now().Add(20 * time.Second))
	c, err := b.Proxy.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b.diag < 0 {
		t.Fatal("the first process handed out no socket-diagnostics socket")
	}
	pids, err := proctree.Descendants(b.PID())
	if err != nil || len(pids) == 0 {
		t.Fatalf("the sandbox's processes: %v %v", pids, err)
	}
	ra, la := c.RemoteAddr().(*net.TCPAddr), c.LocalAddr().(*net.TCPAddr)
	byDiag, byTable := b.diagInode(ra, la), socketInode(pids[0], ra, la)
	if byDiag == "" || byDiag != byTable {
		t.Errorf("socket inode: %q by the diagnostics socket, %q by the TCP table", byDiag, byTable)
	}
	if p := b.Process(c); !strings.Contains(p, "sleep 30") && !strings.Contains(p, "bash") {
		t.Errorf("Process = %q, want the bash that connected", p)
	}
}

// On Landlock the agent shares the host's network namespace, whose TCP
// table holds every socket of the machine: a connection to the run's
// proxy still names the process that made it when closed connections
// (TIME_WAIT, no inode) once used the same local port.
func TestProcessNamesTheConnectorOnLandlock(t *testing.T) {
	if initproc.ABI() < 4 {
		t.Fatalf("Landlock ABI %d cannot confine the network; this test needs 4 or later", initproc.ABI())
	}
	// The system's own python: a shim under HOME would be hidden.
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("python3 is needed: %v", err)
	}
	self, ws := selfAndWorkspace(t)
	// Leave closed connections from one local port to several listeners:
	// the agent's connection will come from that port too.
	srcPort := timeWaitsFrom(t, 16)
	script := fmt.Sprintf(`import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", %d))
s.connect(("127.0.0.1", 3128))
s.send(b"hi")
time.sleep(30)`, srcPort)
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	b, err := Start(t.Context(), Spec{
		Landlock: true, Init: self, Dir: ws, Home: t.TempDir(), Workspaces: []string{ws}, AgentPort: 47312,
		Argv: []string{python, "-c", script},
		Env:  []string{"PATH=/usr/bin:/bin"}, Stdin: devnull, Stdout: os.Stderr, Stderr: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { b.Kill(); b.Wait() }()
	c := acceptWithin(t, b.Proxy, 20*time.Second)
	defer c.Close()
	if got := c.RemoteAddr().(*net.TCPAddr).Port; got != srcPort {
		t.Fatalf("the agent connected from port %d, not %d", got, srcPort)
	}
	if p := b.Process(c); !strings.Contains(p, "python") {
		t.Errorf("Process = %q, want the python that connected", p)
	}
}

// timeWaitsFrom closes n connections from one local port, each to a
// listener of its own, client side first (so each stays in TIME_WAIT),
// and returns the port.
func timeWaitsFrom(t *testing.T, n int) int {
	t.Helper()
	port := 0
	for range n {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port},
			Control: func(_, _ string, rc syscall.RawConn) error {
				var serr error
				err := rc.Control(func(fd uintptr) {
					serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
				})
				return errors.Join(err, serr)
			}}
		c, err := d.Dial("tcp4", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		port = c.LocalAddr().(*net.TCPAddr).Port
		c.Close()
		// The peer's close after ours: ours is the side left waiting.
		buf := make([]byte, 1)
		s.Read(buf)
		s.Close()
		ln.Close()
	}
	return port
}

// acceptWithin is ln's next connection, failing t when none comes within d.
func acceptWithin(t *testing.T, ln net.Listener, d time.Duration) net.Conn {
	t.Helper()
	type accepted struct {
		c   net.Conn
		err error
	}
	got := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		got <- accepted{c, err}
	}()
	select {
	case a := <-got:
		if a.err != nil {
			t.Fatal(a.err)
		}
		return a.c
	case <-time.After(d):
		t.Fatalf("no connection within %s", d)
		return nil
	}
}

// selfAndWorkspace are the test binary (the sandbox's first process) and
// a fresh workspace, resolved.
func selfAndWorkspace(t *testing.T) (string, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return self, ws
}
