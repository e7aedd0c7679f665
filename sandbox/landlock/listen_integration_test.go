//go:build integration

package landlock

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// ownListeners is a Python script that makes the servers a test suite or
// a dev server makes and reports what worked, one "name=ok|refused" a line.
const ownListeners = `
import socket, sys, threading
def serve(s):
    c, _ = s.accept(); c.sendall(c.recv(16)); c.close()
def check(name, family, bind, dial):
    try:
        s = socket.socket(family)
        s.bind(bind); s.listen(1)
        threading.Thread(target=serve, args=(s,), daemon=True).start()
        c = socket.create_connection((dial, s.getsockname()[1]), 5)
        c.sendall(b"hi"); ok = c.recv(16) == b"hi"
        print(name + ("=ok" if ok else "=wrong"))
    except OSError as e:
        print(name + "=refused", e, file=sys.stderr); print(name + "=refused")
check("loopback", socket.AF_INET, ("127.0.0.1", 0), "127.0.0.1")
check("any", socket.AF_INET, ("0.0.0.0", 0), "127.0.0.1")
check("dualstack", socket.AF_INET6, ("::", 0), "127.0.0.1")
check("six", socket.AF_INET6, ("::1", 0), "::1")
check("localhost", socket.AF_INET, ("127.0.0.1", 0), "localhost")
check("lowport", socket.AF_INET, ("127.0.0.1", 81), "127.0.0.1")
`

// A run on Landlock serves itself as on a network namespace of its own:
// the servers a test suite starts on the loopback (a fixed or a free
// port, a wildcard address, IPv6 dual stack) take its own connections;
// a privileged port stays refused, as for any process of the user.
func TestOwnListenersServeTheRun(t *testing.T) {
	out, stderr := runProxied(t, t.TempDir(), []string{"python3", "-c", ownListeners})
	for _, want := range []string{"loopback=ok", "any=ok", "dualstack=ok", "six=ok", "localhost=ok", "lowport=refused"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("want %s in %q (stderr %q)", want, out, stderr)
		}
	}
}

// A run's listener takes no connection from the network: Landlock has
// no network namespace to keep it in, and a listen(2) without bind(2)
// binds every address, past Landlock's bind rule. A client in another
// network namespace, reaching this host over a veth pair (a machine on
// the LAN, as far as the kernel can tell), is refused by each of the
// run's listeners, while it reaches a listener of the host's own.
func TestOwnListenersStayOffTheNetwork(t *testing.T) {
	remote := newRemote(t)
	ws := t.TempDir()
	must(t, os.Mkdir(filepath.Join(ws, "run"), 0o755))
	host, err := net.Listen("tcp4", "0.0.0.0:0")
	must(t, err)
	defer host.Close()
	var hostHits atomic.Int32
	go acceptCount(host, &hostHits)

	// Each listener's port goes to a file; the run waits for the go-ahead
	// and then checks its own clients still reach them.
	script := `
import socket, os, time
made = []
for name, mk in [("auto", lambda s: None), ("any", lambda s: s.bind(("0.0.0.0", 0))), ("dual", lambda s: s.bind(("::", 0)))]:
    s = socket.socket(socket.AF_INET6 if name == "dual" else socket.AF_INET)
    try:
        mk(s); s.listen(8); made.append((name, s)); port = str(s.getsockname()[1])
    except OSError as e:
        print(name + "=nolisten", e); port = "none"
    open("run/" + name + ".tmp", "w").write(port); os.rename("run/" + name + ".tmp", "run/" + name)
for _ in range(600):
    if os.path.exists("run/go"): break
    time.sleep(0.05)
for name, s in made:
    try:
        socket.create_connection(("127.0.0.1", s.getsockname()[1]), 5); print(name + "=self")
    except OSError as e:
        print(name + "=noself", e)
`
	done := make(chan string, 1)
	go func() {
		out, stderr := runProxied(t, ws, []string{"python3", "-c", script})
		done <- out + stderr
	}()
	hostPort := host.Addr().(*net.TCPAddr).Port
	if got := remote.dial(t, hostPort); got != "reached" {
		t.Fatalf("the remote client cannot reach a host listener (%s): the test's network does not work", got)
	}
	for _, name := range []string{"auto", "any", "dual"} {
		port := waitFile(t, filepath.Join(ws, "run", name))
		p, err := strconv.Atoi(port)
		if err != nil {
			t.Errorf("the run could not listen (%s)", name)
			continue
		}
		if got := remote.dial(t, p); got != "refused" {
			t.Errorf("the run's %s listener, port %d, from the network: %s", name, p, got)
		}
	}
	must(t, os.WriteFile(filepath.Join(ws, "run", "go"), nil, 0o644))
	out := <-done
	for _, want := range []string{"auto=self", "any=self", "dual=self"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's own client: want %s in %q", want, out)
		}
	}
}

// A port the run listened on and let go is not its own any more: the
// host's listener that took it next stays out of reach.
func TestOwnPortTakenByTheHost(t *testing.T) {
	ws := t.TempDir()
	must(t, os.Mkdir(filepath.Join(ws, "run"), 0o755))
	script := `
import socket, os, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); port = s.getsockname()[1]
socket.create_connection(("127.0.0.1", port), 5); print("first=reached")
s.close()
open("run/port.tmp", "w").write(str(port)); os.rename("run/port.tmp", "run/port")
for _ in range(600):
    if os.path.exists("run/go"): break
    time.sleep(0.05)
try:
    socket.create_connection(("127.0.0.1", port), 5); print("second=reached")
except OSError as e:
    print("second=refused", e)
`
	done := make(chan string, 1)
	go func() {
		out, stderr := runProxied(t, ws, []string{"python3", "-c", script})
		done <- out + stderr
	}()
	port := waitFile(t, filepath.Join(ws, "run", "port"))
	host, err := net.Listen("tcp4", "127.0.0.1:"+port)
	must(t, err)
	defer host.Close()
	var hits atomic.Int32
	go acceptCount(host, &hits)
	must(t, os.WriteFile(filepath.Join(ws, "run", "go"), nil, 0o644))
	out := <-done
	if !strings.Contains(out, "first=reached") || !strings.Contains(out, "second=refused") || hits.Load() != 0 {
		t.Errorf("%q, %d connections to the host's listener", out, hits.Load())
	}
}

// A host server that shares its port (SO_REUSEPORT, as nginx's
// reuseport does) keeps its clients: a run's socket with the same
// option, which the kernel would join to that server's group (the same
// user) and hand part of its connections, cannot bind there.
func TestOwnListenerJoinsNoHostGroup(t *testing.T) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, 0xf, 1) }); err != nil {
			return err
		}
		return serr
	}}
	host, err := lc.Listen(t.Context(), "tcp4", "127.0.0.1:0")
	must(t, err)
	defer host.Close()
	port := strconv.Itoa(host.Addr().(*net.TCPAddr).Port)
	out, stderr := runProxied(t, t.TempDir(), []string{"python3", "-c", `
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("joined")
except OSError as e:
    print("refused", e.errno)
own = socket.socket(); own.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
own.bind(("127.0.0.1", 0)); own.listen(1)
two = socket.socket(); two.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
two.bind(("127.0.0.1", own.getsockname()[1])); two.listen(1); print("own-group")
`, port})
	if !strings.Contains(out, "refused 98") {
		t.Errorf("the run's socket joined the host's group on port %s: %q %q", port, out, stderr)
	}
	if !strings.Contains(out, "own-group") {
		t.Errorf("the run could not share a port among its own sockets: %q %q", out, stderr)
	}
}

// runProxied runs argv on Landlock with a proxy (the network every
// command gets from the daemon) in workspace ws and returns its output.
func runProxied(t *testing.T, ws string, argv []string) (stdout, stderr string) {
	t.Helper()
	b, err := New(Options{})
	if err != nil {
		t.Fatalf("landlock unavailable: %v", err)
	}
	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "t", Workspaces: []string{ws}})
	if err != nil {
		t.Error(err)
		return "", ""
	}
	defer s.Close(t.Context())
	lim := sandbox.DefaultLimits()
	lim.Wall = 90 * time.Second
	r, err := s.Run(t.Context(), sandbox.Spec{
		Argv: argv, Env: []string{"PATH=/usr/bin:/bin"}, Limits: lim,
		Network: sandbox.Network{Mode: sandbox.NetProxy, Proxy: &countingProxy{}},
	})
	if err != nil {
		t.Error(err)
	}
	return string(r.Stdout), string(r.Stderr)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// remote is a network namespace joined to this host by a veth pair: a
// client there is another machine to the kernel.
type remote struct{ ns, hostIP string }

func newRemote(t *testing.T) *remote {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIP: making a network namespace and a veth pair needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("iproute2's ip is missing (scripts/deps.sh installs it): %v", err)
	}
	id := os.Getpid() % 10000
	r := &remote{ns: fmt.Sprintf("ghremote%d", id), hostIP: "198.51.100.1"}
	hostEnd, nsEnd := fmt.Sprintf("ghh%d", id), fmt.Sprintf("ghn%d", id)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", r.ns)
	t.Cleanup(func() {
		exec.Command("ip", "link", "del", hostEnd).Run()
		exec.Command("ip", "netns", "del", r.ns).Run()
	})
	ip("link", "add", hostEnd, "type", "veth", "peer", "name", nsEnd)
	ip("link", "set", nsEnd, "netns", r.ns)
	ip("addr", "add", r.hostIP+"/30", "dev", hostEnd)
	ip("link", "set", hostEnd, "up")
	ip("-n", r.ns, "addr", "add", "198.51.100.2/30", "dev", nsEnd)
	ip("-n", r.ns, "link", "set", nsEnd, "up")
	ip("-n", r.ns, "link", "set", "lo", "up")
	return r
}

// dial connects from the namespace to the host's end at port: reached,
// refused, or what else happened.
func (r *remote) dial(t *testing.T, port int) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", r.ns, "python3", "-c", `
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), 3); print("reached")
except ConnectionRefusedError:
    print("refused")
except OSError as e:
    print(e)
`, r.hostIP, strconv.Itoa(port)).CombinedOutput()
	if err != nil {
		t.Fatalf("dial from the namespace: %v %s", err, out)
	}
	return strings.TrimSpace(string(out))
}
