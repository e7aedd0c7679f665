//go:build integration

package cli_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// `gatehouse version` and `--version` print the version the audit log
// records at each start.
func TestVersionMatchesTheAudit(t *testing.T) {
	d := clitest.Start(t)
	starts := d.Events("kind=system.start")
	if len(starts) == 0 {
		t.Fatal("no system.start event")
	}
	recorded, _ := starts[0]["payload"].(map[string]any)["version"].(string)
	if recorded == "" {
		t.Fatalf("system.start records no version: %v", starts[0])
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, code := clitest.Run(t.Context(), t, d.Bin, d.Env(), args...)
		if code != 0 || strings.TrimSpace(out) != "gatehouse "+recorded {
			t.Errorf("%v = %q (exit %d), want %q", args, out, code, "gatehouse "+recorded)
		}
	}
}

// A headless start ends with what to do next, and without --workspace it
// says plainly where agents may work (the project each starts in). An agent's connection
// is one INFO line.
func TestServeSaysWhatToDoNext(t *testing.T) {
	bin := clitest.Binary(t)
	dir := t.TempDir()
	ws, data := filepath.Join(dir, "project"), filepath.Join(dir, "data")
	os.Mkdir(ws, 0o755)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "info")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var log clitest.LockedBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	clitest.WaitFor(t, 30*time.Second, "the start-up summary", func() bool { return strings.Contains(log.String(), "MCP client") })
	out := log.String()
	for _, want := range []string{
		"Agents work in the project they start in: the first time one starts in a project, you are asked to allow it",
		"gatehouse --data " + data + " open",
		"gatehouse --data " + data + " install claude",
		filepath.Join(data, "agent.token"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("start-up output lacks %q:\n%s", want, out)
		}
	}

	addr, _ := os.ReadFile(filepath.Join(data, "addr"))
	d := &clitest.Daemon{Bin: bin, Data: data, Workspace: ws, Addr: strings.TrimSpace(string(addr))}
	d = clitest.Attach(t, d)
	before := strings.Count(log.String(), "level=INFO")
	// No root is configured: the client says where it works, as the
	// stdio bridge does, and the project it names is asked about.
	decided := make(chan struct{})
	go func() {
		defer close(decided)
		a := d.WaitApproval(30 * time.Second)
		d.Decide(a.ID, "allow", "once", "")
	}()
	s := d.MCPOver(t.Context(), "one-line", clitest.InDir(ws, nil))
	<-decided
	call(t, s, "list_dir", map[string]any{})
	s.Close()
	clitest.WaitFor(t, 10*time.Second, "the session to end", func() bool { return len(d.Events("kind=session.end")) == 1 })
	var infos []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "level=INFO") {
			infos = append(infos, l)
		}
	}
	infos = infos[before:]
	if len(infos) != 1 || !strings.Contains(infos[0], `msg="agent connected"`) || !strings.Contains(infos[0], "client=one-line") {
		t.Fatalf("one connection logged %d INFO lines, want one \"agent connected\":\n%s", len(infos), strings.Join(infos, "\n"))
	}
}

// A busy port gets a way out.
func TestServeBusyPort(t *testing.T) {
	bin := clitest.Binary(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	env := append(os.Environ(), "XDG_CONFIG_HOME="+dir)

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, stderr, code := clitest.Run(t.Context(), t, bin, env, "serve", "--listen", busy.Addr().String(), "--data", filepath.Join(dir, "d1"), "--workspace", ws)
	if code != 1 || !strings.Contains(stderr, busy.Addr().String()+" is already in use") || !strings.Contains(stderr, "--listen 127.0.0.1:0") {
		t.Errorf("busy port: exit %d, stderr %q", code, stderr)
	}

}
