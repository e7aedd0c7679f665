package proof

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// The network rows watch each kind of traffic fail in a real process:
// the host runs the listener, the sandbox tries to reach it with the
// tools it has (bash's /dev/tcp and /dev/udp, busybox), and the row
// passes only if nothing arrived. Each probe script exits 97 when the
// sandbox has no tool for it.

// udpTrap counts datagrams on 127.0.0.1 that carry its marker.
type udpTrap struct {
	conn   *net.UDPConn
	marker string
	got    atomic.Int32
	done   chan struct{}
}

func newUDPTrap() (*udpTrap, error) {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	t := &udpTrap{conn: c, marker: "gh" + randHex(6), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		buf := make([]byte, 2048)
		for {
			n, _, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if bytes.Contains(buf[:n], []byte(t.marker)) {
				t.got.Add(1)
			}
		}
	}()
	return t, nil
}

func (t *udpTrap) port() string { return strconv.Itoa(t.conn.LocalAddr().(*net.UDPAddr).Port) }

// received closes the trap, after a moment for a datagram already sent
// to be read, and says how many came.
func (t *udpTrap) received() int {
	time.Sleep(100 * time.Millisecond)
	t.conn.Close()
	<-t.done
	return int(t.got.Load())
}

// udpScript sends a datagram with marker $2 to 127.0.0.1:$1.
const udpScript = `if command -v bash >/dev/null 2>&1; then bash -c 'echo "$2" > /dev/udp/127.0.0.1/$1' sh "$1" "$2";
elif command -v busybox >/dev/null 2>&1; then busybox tftp -g -r "$2" 127.0.0.1 "$1";
else exit 97; fi`

// dnsScript asks the resolver at 127.0.0.1:$1 for $2.example.test; $3
// is the same query as printf escapes, for bash.
const dnsScript = `if command -v busybox >/dev/null 2>&1; then busybox nslookup "$2.example.test" "127.0.0.1:$1";
elif command -v bash >/dev/null 2>&1; then bash -c 'printf "$1" > /dev/udp/127.0.0.1/$0' "$1" "$3";
else exit 97; fi`

// dnsQuery is an A query for name, written as printf escapes.
func dnsQuery(name string) string {
	var b strings.Builder
	b.WriteString(`\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00`)
	for _, l := range strings.Split(name, ".") {
		fmt.Fprintf(&b, `\x%02x%s`, len(l), l)
	}
	b.WriteString(`\x00\x00\x01\x00\x01`)
	return b.String()
}

// rawScript pings 127.0.0.1, which needs a raw (or ICMP datagram) socket.
const rawScript = `if command -v ping >/dev/null 2>&1; then ping -c 1 -W 1 127.0.0.1;
elif command -v busybox >/dev/null 2>&1; then busybox ping -c 1 -W 1 127.0.0.1;
else exit 97; fi`

func checkUDP(ctx context.Context, e *env) (Outcome, string) {
	return udpRow(ctx, e, udpScript, sandbox.NetNone, nil)
}

func checkDNS(ctx context.Context, e *env) (Outcome, string) {
	return udpRow(ctx, e, dnsScript, sandbox.NetNone, nil)
}

// udpRow runs script against a fresh trap and fails if the marker came.
func udpRow(ctx context.Context, e *env, script string, mode sandbox.NetworkMode, proxy sandbox.Proxy) (Outcome, string) {
	trap, err := newUDPTrap()
	if err != nil {
		return Unavailable, fmt.Sprintf("cannot listen for UDP on 127.0.0.1: %v", err)
	}
	argv := []string{"sh", "-c", script, "sh", trap.port(), trap.marker, dnsQuery(trap.marker + ".example.test")}
	r, err := e.run(ctx, argv, func(s *sandbox.Spec) {
		s.Network = sandbox.Network{Mode: mode, Proxy: proxy}
	})
	n := trap.received()
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case n > 0:
		return Fail, fmt.Sprintf("a datagram from the sandbox reached 127.0.0.1:%s", trap.port())
	case r.ExitCode == 97:
		return Unavailable, "no bash or busybox inside the sandbox to probe with"
	}
	return Pass, "nothing arrived: " + firstLine(append(r.Stderr, r.Stdout...))
}

func checkRaw(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", rawScript}, nil)
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case r.ExitCode == 97:
		return Unavailable, "no ping or busybox inside the sandbox to probe with"
	case r.ExitCode == 0 || bytes.Contains(r.Stdout, []byte("bytes from")):
		return Fail, "ping got a reply: the sandbox could send ICMP"
	}
	return Pass, "no reply: " + firstLine(append(r.Stderr, r.Stdout...))
}

// fakeProxy answers every request on a run's proxy listener with 200, so
// a row can tell the proxy was reached.
type fakeProxy struct{ conns atomic.Int32 }

func (p *fakeProxy) Serve(ln net.Listener) {
	serveCanned(ln, &p.conns, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nproxy-ok\n")
}

// HostPorts: the rows probe no service of the person's.
func (p *fakeProxy) HostPorts() []int { return nil }

func (p *fakeProxy) ServeHost(int, net.Listener) {}

// countAccepts accepts on ln until it closes, counting each connection in
// n and closing it: a row that must reach nothing counts what got through.
func countAccepts(ln net.Listener, n *atomic.Int32) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		c.Close()
	}
}

// serveCanned accepts on ln until it closes, counting connections in n,
// reads each request's head and answers it with response.
func serveCanned(ln net.Listener, n *atomic.Int32, response string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		go func() {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadString('\n')
				if err != nil || strings.TrimSpace(line) == "" {
					break
				}
			}
			_, _ = c.Write([]byte(response))
		}()
	}
}

// proxyScript asks the proxy in $HTTP_PROXY for a page.
const proxyScript = `hp=${HTTP_PROXY#http://}; host=${hp%:*}; port=${hp##*:}
req='GET http://doctor.example.test/ HTTP/1.1\r\nHost: doctor.example.test\r\n\r\n'
if command -v bash >/dev/null 2>&1; then bash -c 'exec 3<>/dev/tcp/$0/$1 && printf "$2" >&3 && cat <&3' "$host" "$port" "$req";
elif command -v nc >/dev/null 2>&1; then printf "$req" | nc "$host" "$port";
else exit 97; fi`

func checkProxyReached(ctx context.Context, e *env) (Outcome, string) {
	p := &fakeProxy{}
	r, err := e.run(ctx, []string{"sh", "-c", proxyScript}, func(s *sandbox.Spec) {
		s.Network = sandbox.Network{Mode: sandbox.NetProxy, Proxy: p}
	})
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case r.ExitCode == 97:
		return Unavailable, "no bash or nc inside the sandbox to probe with"
	case p.conns.Load() == 0 || !bytes.Contains(r.Stdout, []byte("proxy-ok")):
		return Fail, "the proxy was not reached: " + firstLine(append(r.Stderr, r.Stdout...))
	}
	return Pass, "HTTP_PROXY answered: " + firstLine(r.Stdout)
}

// checkProxyOnly tries, beside a proxy, what must still fail: a direct
// TCP connect to the host, a datagram and a DNS query.
func checkProxyOnly(ctx context.Context, e *env) (Outcome, string) {
	p := &fakeProxy{}
	out, why := tcpRow(ctx, e, sandbox.NetProxy, p)
	if out != Pass {
		return out, "direct TCP: " + why
	}
	for _, probe := range []struct{ name, script string }{{"UDP", udpScript}, {"DNS", dnsScript}} {
		if out, why := udpRow(ctx, e, probe.script, sandbox.NetProxy, p); out != Pass {
			return out, probe.name + ": " + why
		}
	}
	if n := p.conns.Load(); n > 0 {
		return Fail, fmt.Sprintf("the probes reached the proxy %d times; they should have gone direct and failed", n)
	}
	return Pass, "direct TCP, UDP and DNS all failed beside the proxy"
}

// ownServerPython listens as a test suite's or a dev server may, with no
// bind (every address), answers its own client, and prints what it got,
// its network namespace ($1) and the device its listener is tied to
// (SO_BINDTOIFINDEX). No single quote: scripts quote it in them.
const ownServerPython = `
import socket, sys, threading
s = socket.socket(); s.listen(1)
threading.Thread(target=lambda: s.accept()[0].sendall(b"own-server-ok"), daemon=True).start()
c = socket.create_connection(("127.0.0.1", s.getsockname()[1]), 5)
print("OWN-SERVER", c.recv(32).decode(), sys.argv[1], s.getsockopt(socket.SOL_SOCKET, 62))
`

// ownServerScript runs ownServerPython, else nc on a fixed port, which
// shows no device ("none").
const ownServerScript = `ns=$(readlink /proc/self/ns/net)
if command -v python3 >/dev/null 2>&1; then exec python3 -c '` + ownServerPython + `' "$ns"
elif command -v nc >/dev/null 2>&1; then
  (echo own-server-ok | nc -l -p 47123) &
  i=0; while [ $i -lt 50 ]; do o=$(nc 127.0.0.1 47123 </dev/null 2>/dev/null) && [ -n "$o" ] && break; sleep 0.1; i=$((i+1)); done
  echo OWN-SERVER "$o" "$ns" none
else exit 97; fi`

// checkOwnServer: a server a command starts (a test suite's) answers the
// command, beside the proxy, and the network cannot reach it: the run has
// a network namespace of its own, or (Landlock, in the host's) its
// listener is tied to the loopback device.
// sandbox/landlock's TestOwnListenersStayOffTheNetwork watches a client
// on another network namespace refused.
func checkOwnServer(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", ownServerScript}, func(s *sandbox.Spec) {
		s.Network = sandbox.Network{Mode: sandbox.NetProxy, Proxy: &fakeProxy{}}
	})
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case r.ExitCode == 97:
		return Unavailable, "no python3 or nc inside the sandbox to probe with"
	}
	return ownServerRow(append(r.Stdout, r.Stderr...))
}

// ownServerRow reads ownServerPython's line in out.
func ownServerRow(out []byte) (Outcome, string) {
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return Unavailable, fmt.Sprintf("cannot read this process's network namespace: %v", err)
	}
	var f []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "OWN-SERVER ") {
			f = strings.Fields(line)[1:]
		}
	}
	switch {
	case len(f) != 3 || f[0] != "own-server-ok":
		return Fail, "its own client could not reach it: " + firstLine(out)
	case f[1] != host:
		return Pass, "its own client reached it, in a network namespace of the run's"
	case f[2] == "none":
		return Unavailable, "no python3 inside the sandbox to tell which device its server listens on"
	case f[2] != "1":
		return Fail, "it listens on every interface of the host: the network could connect to it"
	}
	return Pass, "its own client reached it; it listens on the loopback device only"
}

// hostSocketScript connects to the unix socket $1 (curl, else python3); a
// socket the sandbox cannot even see is out of reach.
const hostSocketScript = `if [ ! -S "$1" ]; then echo "the socket is not visible in the sandbox"; exit 3;
elif command -v curl >/dev/null 2>&1; then curl -sS --max-time 5 --unix-socket "$1" http://gatehouse-proof/;
elif command -v python3 >/dev/null 2>&1; then python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.send(b"x")' "$1";
else exit 97; fi`

// checkHostSocket listens on a unix socket outside the workspace, as the
// daemon's control.sock and the session bus do, and fails if a run reaches
// it: through one, a command could approve its own cards or start programs
// outside any sandbox.
func checkHostSocket(ctx context.Context, e *env) (Outcome, string) {
	dir, err := os.MkdirTemp("", "gatehouse-proof-sock-")
	if err != nil {
		return Unavailable, fmt.Sprintf("cannot make a socket directory: %v", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "host.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		return Unavailable, fmt.Sprintf("cannot listen on a unix socket: %v", err)
	}
	var conns atomic.Int32
	go countAccepts(ln, &conns)
	r, err := e.run(ctx, []string{"sh", "-c", hostSocketScript, "sh", path}, nil)
	ln.Close()
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case conns.Load() > 0:
		return Fail, "a command reached a unix socket outside the workspace"
	case r.ExitCode == 97:
		return Unavailable, "no curl or python3 inside the sandbox to probe with"
	}
	return Pass, "refused: " + firstLine(append(r.Stderr, r.Stdout...))
}
