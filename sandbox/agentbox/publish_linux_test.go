package agentbox

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// serveOnceEntry makes the test binary an agent's server inside: it
// answers one connection on 127.0.0.1:PORT, then exits.
const serveOnceEntry = "__serve-once"

func serveOnce(port string) int {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return 3
	}
	c, err := ln.Accept()
	if err != nil {
		return 4
	}
	_, _ = io.WriteString(c, "inside-server")
	c.Close()
	return 0
}

// TestDialInside: a server the agent starts in its sandbox's network
// namespace, which nothing on the host reaches, answers a connection
// DialInside makes (the port the person published), whether the sandbox
// was made by its first process or by bubblewrap, whose first process
// would otherwise exec the agent and make no socket.
func TestDialInside(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	bw, _ := exec.LookPath("bwrap")
	for _, bwrap := range []bool{false, true} {
		if bwrap && bw == "" {
			t.Fatal("bubblewrap is not installed (scripts/deps.sh installs it)")
		}
		if !bwrap && !ownNamespaces() {
			t.Log("SKIP: this kernel keeps user namespaces from unprivileged programs")
			continue
		}
		t.Run("bwrap="+strconv.FormatBool(bwrap), func(t *testing.T) {
			s, _ := rootFixture(t, filepath.Join(t.TempDir(), "fixture"), self, bw, sh)
			port := 47000 + os.Getpid()%1000
			s.Argv, s.Publish = []string{self, serveOnceEntry, strconv.Itoa(port)}, true
			useBwrap = bwrap
			defer func() { useBwrap = false }()
			b, err := Start(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
				c.Close()
				t.Fatal("the host reached the server inside directly")
			}
			var got []byte
			if !waitfor.Until(20*time.Second, 20*time.Millisecond, func() bool {
				c, err := b.DialInside(port)
				if err != nil {
					return false
				}
				defer c.Close()
				got, _ = io.ReadAll(c)
				return len(got) > 0
			}) {
				b.Kill()
				b.Wait()
				t.Fatal("DialInside never reached the server inside")
			}
			if string(got) != "inside-server" {
				t.Errorf("got %q", got)
			}
			if code, err := b.Wait(); code != 0 || err != nil {
				t.Errorf("the server ended with %d %v", code, err)
			}
			if _, err := b.DialInside(port); err == nil {
				t.Error("DialInside worked after the run ended")
			}
		})
	}
}
