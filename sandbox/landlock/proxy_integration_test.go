//go:build integration

package landlock

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// countingProxy accepts and closes, counting.
type countingProxy struct{ n atomic.Int32 }

func (p *countingProxy) Serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.n.Add(1)
		c.Close()
	}
}

func (p *countingProxy) HostPorts() []int { return nil }

func (p *countingProxy) ServeHost(int, net.Listener) {}

// What holds beside the proxy without a network namespace, as proxy.go
// says: another port is refused, so is the proxy's port on another
// address (Landlock matches ports only; the supervisor's connect check
// matches the address), and so are TCP Fast Open sends to it by each of
// sendto, sendmsg and sendmmsg; the proxy itself is reached (from a
// second thread too), and another user's connection to the proxy is
// dropped.
func TestProxyPortWhatHolds(t *testing.T) {
	b, err := New(Options{})
	if err != nil {
		t.Fatalf("landlock unavailable: %v", err)
	}
	ws := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The workspace root is read-only under Landlock; its entries are not.
	must(os.Mkdir(filepath.Join(ws, "run"), 0o755))
	buildFastOpen(t, filepath.Join(ws, "run", "fastopen"))
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	must(err)
	defer other.Close()
	var otherHits atomic.Int32
	go acceptCount(other, &otherHits)

	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "t", Workspaces: []string{ws}})
	must(err)
	defer s.Close(t.Context())
	proxy := &countingProxy{}
	// The script tells the test its proxy port, waits for the go-ahead,
	// then tries another port and the proxy's port on another address.
	script := `p=${HTTP_PROXY##*:}; echo "$p" > run/port.tmp && mv run/port.tmp run/port
i=0; while [ ! -e run/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
bash -c "echo hi > /dev/tcp/127.0.0.1/$1" 2>/dev/null && echo other=reached || echo other=refused
bash -c "echo hi > /dev/tcp/127.0.0.2/$p" 2>/dev/null && echo sameport=reached || echo sameport=refused
bash -c "echo hi > /dev/tcp/127.0.0.1/$p" 2>/dev/null && echo proxy=reached || echo proxy=refused
python3 -c "import socket,sys,threading; r=[]; t=threading.Thread(target=lambda: r.append(socket.create_connection(('127.0.0.1', int(sys.argv[1])), 5))); t.start(); t.join(); sys.exit(0 if r else 1)" $p 2>/dev/null && echo thread=reached || echo thread=refused
python3 -c "import socket,sys; socket.socket().sendto(b'hi', 0x20000000, ('127.0.0.2', int(sys.argv[1])))" $p 2>/dev/null && echo fastopen=reached || echo fastopen=refused
python3 -c "import socket,sys; socket.socket().sendmsg([b'hi'], [], 0x20000000, ('127.0.0.2', int(sys.argv[1])))" $p 2>/dev/null && echo sendmsg=reached || echo sendmsg=refused
./run/fastopen $p`
	done := make(chan sandbox.Result, 1)
	go func() {
		lim := sandbox.DefaultLimits()
		lim.Wall = 60 * time.Second
		r, err := s.Run(t.Context(), sandbox.Spec{
			Argv: []string{"sh", "-c", script, "sh", strconv.Itoa(other.Addr().(*net.TCPAddr).Port)},
			Env:  []string{"PATH=/usr/bin:/bin"}, Limits: lim,
			Network: sandbox.Network{Mode: sandbox.NetProxy, Proxy: proxy},
		})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	port := waitFile(t, filepath.Join(ws, "run", "port"))
	same, err := net.Listen("tcp4", "127.0.0.2:"+port)
	must(err)
	defer same.Close()
	var sameHits atomic.Int32
	go acceptCount(same, &sameHits)

	if os.Geteuid() == 0 {
		// Another user connects to the run's proxy port: dropped.
		cmd := exec.Command("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/"+port+"; sleep 0.2")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 61998, Gid: 61998}}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("other user's connect: %v %s", err, out)
		}
		if n := proxy.n.Load(); n != 0 {
			t.Errorf("the proxy took %d connections from another user", n)
		}
	}
	must(os.WriteFile(filepath.Join(ws, "run", "go"), nil, 0o644))
	r := <-done
	out := string(r.Stdout)
	if !strings.Contains(out, "other=refused") || otherHits.Load() != 0 {
		t.Errorf("another port: %q, %d connections", out, otherHits.Load())
	}
	if !strings.Contains(out, "sameport=refused") || sameHits.Load() != 0 {
		t.Errorf("the proxy's port on another address: %q, %d connections", out, sameHits.Load())
	}
	for _, want := range []string{"fastopen=refused", "sendmsg=refused", "sendmmsg=refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("a TCP Fast Open send, which connects without connect(2): want %s in %q (stderr %q)", want, out, r.Stderr)
		}
	}
	if !strings.Contains(out, "proxy=reached") {
		t.Errorf("the proxy itself: %q %s", out, r.Stderr)
	}
	// A runtime's network thread, not its process's first, connects too:
	// the supervisor finds the thread's process.
	if !strings.Contains(out, "thread=reached") {
		t.Errorf("the proxy from a second thread: %q %s", out, r.Stderr)
	}
}

// buildFastOpen builds testdata/fastopen to dst.
func buildFastOpen(t *testing.T, dst string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "build", "-o", dst, "./testdata/fastopen")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build testdata/fastopen: %v\n%s", err, out)
	}
}

func acceptCount(ln net.Listener, n *atomic.Int32) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		c.Close()
	}
}

func waitFile(t *testing.T, p string) string {
	t.Helper()
	var got string
	if !waitfor.Until(30*time.Second, 10*time.Millisecond, func() bool {
		b, err := os.ReadFile(p)
		got = strings.TrimSpace(string(b))
		return err == nil && len(b) > 0
	}) {
		t.Fatalf("%s never appeared", p)
	}
	return got
}
