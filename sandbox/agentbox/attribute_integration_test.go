//go:build integration && linux

package agentbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
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
	byDiag, byTable := b.diagInode(ra, la), socketInode(pids[0], ra.Port)
	if byDiag == "" || byDiag != byTable {
		t.Errorf("socket inode: %q by the diagnostics socket, %q by the TCP table", byDiag, byTable)
	}
	if p := b.Process(c); !strings.Contains(p, "sleep 30") && !strings.Contains(p, "bash") {
		t.Errorf("Process = %q, want the bash that connected", p)
	}
}
