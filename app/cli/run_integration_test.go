//go:build integration

package cli_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// runIn is `gatehouse run --workspace WS ARGS…` against d, as the person
// types it in their project.
func runIn(ctx context.Context, t *testing.T, d *clitest.Daemon, args ...string) (string, string, int) {
	t.Helper()
	return d.CLI(ctx, append([]string{"run", "--workspace", d.Workspace}, args...)...)
}

// runBackends are what confines a run: bubblewrap, Landlock where
// bubblewrap cannot run, and podman (the container backend).
var runBackends = []string{"bwrap", "landlock", "container"}

// startRunDaemon starts a daemon whose runs are confined by backend, with
// extra appended to its config.
func startRunDaemon(t *testing.T, backend, extra string, env ...string) *clitest.Daemon {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "config.toml", backendConfig(t, backend)+extra)
	return clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, env)
}

// backendConfig is the config that confines runs and commands with
// backend (the container's on the test image).
func backendConfig(t *testing.T, backend string) string {
	if backend == "container" {
		return containerConfig(t)
	}
	return "[sandbox]\nbackend = \"" + backend + "\"\n"
}

// serveText serves body on a new listener at addr until the test ends.
func serveText(t *testing.T, addr, body string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { ln.Close() })
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body)) }))
	return ln, nil
}

// TestRunConfinesACommand: a command under `gatehouse run` writes its
// project, and nothing else: a canary in the real home, the project's
// .env, a file outside, a listener on the host's loopback (one on the
// proxy's port at another address too) are all out of reach, for it and
// for a child it detaches; what it may do works: writing in its project,
// a fetch through the proxy the person allows, audited with its process. Its exit status is its
// own; its session is confined. On bubblewrap and on Landlock alike.
func TestRunConfinesACommand(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) { runConfinesACommand(t, backend) })
	}
}

func runConfinesACommand(t *testing.T, backend string) {
	allowed, err := serveText(t, "127.0.0.1:0", "ALLOWED-HOST-ANSWERED")
	if err != nil {
		t.Fatal(err)
	}
	port := allowed.Addr().(*net.TCPAddr).Port
	d := startRunDaemon(t, backend, "[network]\ntest_only_hosts = { \"allowed.example.test\" = \"127.0.0.1\" }\n")
	// The person allows the one fetch the command makes through the proxy.
	go func() {
		if a := d.WaitApproval(clitest.CardWait); a.Domain == "allowed.example.test" {
			d.Decide(a.ID, "allow", "once", "")
		}
	}()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	canary := filepath.Join(home, ".gatehouse-run-canary-"+filepath.Base(t.TempDir()))
	if err := os.WriteFile(canary, []byte("CANARY-5521\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(canary) })
	if err := os.WriteFile(filepath.Join(d.Workspace, ".env"), []byte("API_KEY=run-secret-7781\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d.Workspace, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	host, err := serveText(t, "127.0.0.1:0", "HOST-LISTENER")
	if err != nil {
		t.Fatal(err)
	}
	// The proxy's port number on another loopback address: Landlock's
	// port rule lets it through, the connect supervisor must not.
	elsewhere := "127.0.0.2:3128"
	if _, err := serveText(t, elsewhere, "HOST-LISTENER-ON-THE-PROXY-PORT"); err != nil {
		t.Logf("no listener at %s (%v): that connect is tried all the same", elsewhere, err)
	}

	// What the command tries, and a child it detaches tries again.
	probe := `ls /sys/class 2>/dev/null | head -1 | sed s/^/SYS-/; cat "$1" 2>&1; cat .env; echo x > "$2" 2>&1
curl -s -m 3 --noproxy '*' "http://$3/" 2>&1; echo; curl -s -m 3 --noproxy '*' "http://$4/" 2>&1; echo`
	script := probe + `
test -e /run/.containerenv && echo IN-A-CONTAINER
echo made > src/inside.txt && echo WROTE-INSIDE
setsid sh -c "$0" sh "$1" "$2.child" "$3" "$4" & wait $!
curl -s -m 60 "http://allowed.example.test:$5/"; echo
exit 7`
	out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script, probe, canary, outside, host.Addr().String(), elsewhere, strconv.Itoa(port))
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if code != 7 {
		t.Fatalf("exit %d, want the command's own 7", code)
	}
	if got := strings.Contains(out, "IN-A-CONTAINER"); got != (backend == "container") {
		t.Fatalf("ran in a container: %v, on %s", got, backend)
	}
	leaks := []string{"CANARY-5521", "run-secret-7781", "HOST-LISTENER"}
	if backend != "landlock" {
		leaks = append(leaks, "SYS-") // Landlock shows /sys as the host has it
	}
	for _, leak := range leaks {
		if strings.Contains(out, leak) {
			t.Errorf("the confined command or its child saw %s", leak)
		}
	}
	if !strings.Contains(out, "WROTE-INSIDE") {
		t.Error("the confined command could not write its project")
	}
	if !strings.Contains(out, "ALLOWED-HOST-ANSWERED") {
		t.Error("the confined command could not fetch, through the proxy, what the person allowed")
	}
	// The fetch is audited with the process that made it.
	conns := d.Events("kind=network.connection")
	if len(conns) == 0 {
		t.Error("the fetch through the proxy was not audited")
	}
	for _, c := range conns {
		if p, _ := c["payload"].(map[string]any); !strings.Contains(fmt.Sprint(p["process"]), "curl") {
			t.Errorf("connection %v not attributed to curl", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(d.Workspace, "src", "inside.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("src/inside.txt on the host: %q %v", b, err)
	}
	for _, f := range []string{outside, outside + ".child"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("the confined command or its child wrote outside its project: %s", f)
		}
	}
	// One session, confined, ended with the command's status.
	started := d.Events("kind=run.started")
	if len(started) != 1 {
		t.Fatalf("run.started rows: %v", started)
	}
	sess, _ := started[0]["session"].(string)
	if got := started[0]["payload"].(map[string]any)["backend"]; got != backend {
		t.Errorf("run.started says the run was confined by %v, want %s", got, backend)
	}
	resp, body := d.Request("GET", "/api/v1/sessions/"+sess, nil, d.Control())
	resp.Body.Close()
	if !strings.Contains(body, `"confined":true`) {
		t.Errorf("session %s: %s", sess, body)
	}
	// `gatehouse sessions` says so, in the list and for the one session.
	if out, _, _ := d.CLI(t.Context(), "sessions"); !strings.Contains(out, "[confined]") {
		t.Errorf("gatehouse sessions does not mark the run confined:\n%s", out)
	}
	if out, _, _ := d.CLI(t.Context(), "sessions", sess); !strings.Contains(out, "Confined: the agent and everything it started ran in a sandbox") {
		t.Errorf("gatehouse sessions %s does not say it was confined:\n%s", sess, out)
	}
	// And what the agent wrote itself, with how to undo it.
	if out, _, _ := d.CLI(t.Context(), "sessions", sess); !strings.Contains(out, "added     src/inside.txt") || !strings.Contains(out, "Undo all of it with: gatehouse rollback "+sess+" --call run-") {
		t.Errorf("gatehouse sessions %s does not say what the run changed:\n%s", sess, out)
	}
	if ended := d.Events("kind=run.ended"); len(ended) != 1 || ended[0]["payload"].(map[string]any)["exit"] != float64(7) {
		t.Errorf("run.ended rows: %v", ended)
	}
	// The run was checkpointed around: what it wrote, no hook having seen
	// it, rolls back as one call.
	run, _ := started[0]["payload"].(map[string]any)["run"].(string)
	if out, errOut, code := d.CLI(t.Context(), "rollback", sess, "--call", "run-"+run); code != 0 {
		t.Fatalf("rollback of the run: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "src", "inside.txt")); err == nil {
		t.Error("src/inside.txt is still there after the run was rolled back")
	}
}

// TestRunKillSwitchEndsTheTree: the kill switch ends a confined run and
// every process in it, a daemonised grandchild included, on each
// backend; a container is removed with its run.
func TestRunKillSwitchEndsTheTree(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			runKillSwitchEndsTheTree(t, startRunDaemon(t, backend, ""), backend == "container")
		})
	}
}

// startSleepers starts `gatehouse run` of a command that daemonises a
// sleeper and sleeps itself, and returns both sleepers once they run. A
// length of sleep no other test uses marks them: a container's
// processes descend from podman's monitor, not from `gatehouse run`.
func startSleepers(t *testing.T, d *clitest.Daemon) (cmd *exec.Cmd, log *clitest.LockedBuffer, exited chan struct{}, sleepers []int) {
	mark := fmt.Sprint(300 + time.Now().UnixNano()%1000)
	cmd = exec.Command(d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace, "--", "sh", "-c", `setsid sleep `+mark+` & sleep `+mark+`; :`)
	cmd.Env = d.Env()
	log, exited = clitest.Spawn(t, cmd, "gatehouse run")
	clitest.WaitFor(t, 60*time.Second, "both sleepers running", func() bool {
		procs, _ := proctree.List()
		sleepers = sleepers[:0]
		for _, p := range procs {
			if argv := proctree.Cmdline(p.PID); !p.Zombie && len(argv) == 2 && argv[0] == "sleep" && argv[1] == mark {
				sleepers = append(sleepers, p.PID)
			}
		}
		return len(sleepers) == 2
	})
	return cmd, log, exited, sleepers
}

// waitGone waits until none of pids runs, and, for a container run,
// until its container is removed.
func waitGone(t *testing.T, d *clitest.Daemon, pids []int, inContainer bool) {
	t.Helper()
	clitest.WaitFor(t, 20*time.Second, "every process of the run gone", func() bool {
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil {
				if p, err := proctree.Stat(pid); err == nil && !p.Zombie {
					return false
				}
			}
		}
		return true
	})
	if inContainer {
		run, _ := d.Events("kind=run.started")[0]["payload"].(map[string]any)["run"].(string)
		clitest.WaitFor(t, 20*time.Second, "the run's container removed", func() bool {
			return exec.Command("podman", "container", "exists", agentbox.ContainerName(run)).Run() != nil
		})
	}
}

// TestRunContainerEndsWithItsCLI: a container run whose `gatehouse run`
// is killed outright (SIGKILL, nothing of it runs after) ends with it,
// as a bubblewrap run does (--die-with-parent): its processes are not
// the CLI's children, so a watcher removes the container.
func TestRunContainerEndsWithItsCLI(t *testing.T) {
	d := startRunDaemon(t, "container", "")
	cmd, _, exited, sleepers := startSleepers(t, d)
	cmd.Process.Kill()
	<-exited
	waitGone(t, d, sleepers, true)
}

func runKillSwitchEndsTheTree(t *testing.T, d *clitest.Daemon, inContainer bool) {
	cmd, log, exited, sleepers := startSleepers(t, d)
	if !inContainer {
		// Every process of the run descends from `gatehouse run` on the
		// host (the daemonised sleeper from the sandbox's own init, or
		// from the supervisor, the run's subreaper, on Landlock).
		kids, _ := proctree.Descendants(cmd.Process.Pid)
		for _, s := range sleepers {
			if !slices.Contains(kids, s) {
				t.Errorf("sleeper %d is not below gatehouse run", s)
			}
		}
	}
	if out, errOut, code := d.CLI(t.Context(), "kill"); code != 0 {
		t.Fatalf("gatehouse kill: %d %s%s", code, out, errOut)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("gatehouse run did not end after the kill switch:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "the confined run was stopped") {
		t.Errorf("gatehouse run did not say why it stopped:\n%s", log.String())
	}
	waitGone(t, d, sleepers, inContainer)
}

// TestRunRefusesClearly: what cannot run is said in one sentence, and
// nothing starts.
func TestRunRefusesClearly(t *testing.T) {
	d := clitest.Start(t)
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"not found", nil, []string{"--", "no-such-program-7731"}, "was not found on your PATH"},
		{"no profile", nil, []string{"vim"}, "no profile for \"vim\""},
		{"nested", []string{"GATEHOUSE_RUN=r1"}, []string{"--", "true"}, "already inside a confined run"},
		{"claude's own worktree", nil, []string{"claude", "--worktree=feature", "-p", "hi"}, "make the worktree beside the project instead (git worktree add ../NAME -b NAME)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := clitest.Run(t.Context(), t, d.Bin, append(d.Env(), c.env...), append([]string{"--data", d.Data, "run", "--workspace", d.Workspace}, c.args...)...)
			if code == 0 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want a failure saying %q", code, errOut, c.want)
			}
		})
	}
	t.Run("current directory removed", func(t *testing.T) {
		gone := filepath.Join(t.TempDir(), "gone")
		script := `mkdir "$1" && cd "$1" && rmdir "$1" && exec "$2" --data "$3" run -- true`
		_, errOut, code := clitest.Run(t.Context(), t, "sh", d.Env(), "-c", script, "sh", gone, d.Bin, d.Data)
		if code == 0 || !strings.Contains(errOut, "the current directory cannot be read (was it removed?)") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("kill switch on", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "ran")
		if _, errOut, code := d.CLI(t.Context(), "kill"); code != 0 {
			t.Fatalf("kill: %s", errOut)
		}
		defer d.CLI(t.Context(), "resume")
		_, errOut, code := runIn(t.Context(), t, d, "--", "touch", marker)
		if code == 0 || !strings.Contains(errOut, "the kill switch is on, so nothing was started; lift it with `gatehouse resume`") || strings.Contains(errOut, "do not retry") {
			t.Fatalf("exit %d, stderr %q; want the person told what to do", code, errOut)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the command ran with the kill switch on")
		}
	})
	t.Run("daemon down", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "ran")
		d.Stop()
		_, errOut, code := runIn(t.Context(), t, d, "--", "touch", marker)
		if code == 0 || !strings.Contains(errOut, "not running") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the command ran with no daemon")
		}
	})
}

// TestRunEndsWhatTheCommandLeftBehind: a command that daemonises a child
// and exits ends the run, and the child with it: nothing it started is
// left running, on each backend.
func TestRunEndsWhatTheCommandLeftBehind(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) { runEndsWhatTheCommandLeftBehind(t, startRunDaemon(t, backend, "")) })
	}
}

func runEndsWhatTheCommandLeftBehind(t *testing.T, d *clitest.Daemon) {
	marker := "gatehouse-run-left-" + filepath.Base(t.TempDir())
	_, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", `setsid sh -c 'sleep 300' "$1" & sleep 0.2; exit 0`, "sh", marker)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	left := func(pid int) bool {
		for _, a := range proctree.Cmdline(pid) {
			if a == marker {
				return true
			}
		}
		return false
	}
	clitest.WaitFor(t, 10*time.Second, "the daemonised child gone with the run", func() bool {
		procs, _ := proctree.List()
		for _, p := range procs {
			if !p.Zombie && left(p.PID) {
				return false
			}
		}
		return true
	})
}

// TestRunProfileDomainDeniedByPolicy: a profile's model domain needs no
// card, but a network rule that denies it wins.
func TestRunProfileDomainDeniedByPolicy(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("MODEL-ANSWERED")) }))
	clitest.WriteConfig(t, ws, "config.toml", `[network]
test_only_hosts = { "model.example.test" = "127.0.0.1", "other.example.test" = "127.0.0.1" }

[agents.claude]
domains = ["model.example.test", "other.example.test"]
`)
	port := ln.Addr().(*net.TCPAddr).Port
	clitest.WriteConfig(t, ws, "policy.toml", fmt.Sprintf(`[[rule]]
id = "no-other"
action = "deny"
tool = "network"
domains = ["other.example.test"]
ports = [%d]
reason = "not this one"
`, port))
	d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
	script := fmt.Sprintf(`curl -s -m 10 http://model.example.test:%d/; echo; curl -s -m 10 http://other.example.test:%d/; echo`, port, port)
	out, errOut, code := runIn(t.Context(), t, d, "--profile", "claude", "--", "sh", "-c", script)
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if code != 0 || strings.Count(out, "MODEL-ANSWERED") != 1 || !strings.Contains(out, "not this one") {
		t.Fatalf("want the profile's domain reached and the denied one refused with the rule's reason; exit %d", code)
	}
	if cards := d.Events("kind=approval.requested"); len(cards) != 0 {
		t.Errorf("cards were raised: %v", cards)
	}
}

// TestRunAsksForAnotherProject: a run started in a project no root holds
// waits for the workspace card and starts nothing when the person says
// no.
func TestRunAsksForAnotherProject(t *testing.T) {
	d := clitest.Start(t)
	other := t.TempDir()
	marker := filepath.Join(other, "ran")
	go func() {
		a := d.WaitApproval(clitest.CardWait)
		d.Decide(a.ID, "deny", "once", "not here")
	}()
	_, errOut, code := d.CLI(t.Context(), "run", "--workspace", other, "--", "touch", marker)
	if code == 0 || !strings.Contains(errOut, "did not allow Gatehouse to work in") || !strings.Contains(errOut, "not here") {
		t.Fatalf("exit %d, stderr %q; want the refusal with the person's message", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran in a project the person refused")
	}
}

// TestRunKeepsAgentSettings: a profile's settings inside its writable
// state directory never keep a change the run makes: on bubblewrap and
// for Claude Code on Landlock the write is refused; for an agent that
// makes files beside its settings (Gemini) on Landlock the change stops
// the run at once and is put back, said in one sentence. The state
// directory itself is written either way.
func TestRunKeepsAgentSettings(t *testing.T) {
	for _, c := range []struct {
		backend, profile, state string
		stopped                 bool
	}{
		{"bwrap", "claude", ".claude", false},
		{"bwrap", "gemini", ".gemini", false},
		{"landlock", "claude", ".claude", false},
		{"landlock", "gemini", ".gemini", true},
	} {
		t.Run(c.backend+"/"+c.profile, func(t *testing.T) {
			base := t.TempDir()
			home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
			sub := filepath.Join(home, c.state, "sub")
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nbackend = \""+c.backend+"\"\n")
			d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"HOME=" + home})
			script := `echo s > "$HOME/$1/sub/state" && echo WROTE-STATE
echo pwned > "$HOME/$1/settings.json" 2>/dev/null || { echo REFUSED; exit 0; }
sleep 30; echo NOT-STOPPED`
			out, errOut, code := runIn(t.Context(), t, d, "--profile", c.profile, "--", "sh", "-c", script, "sh", c.state)
			t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			if b, err := os.ReadFile(filepath.Join(home, c.state, "settings.json")); err != nil || string(b) != "{}" {
				t.Errorf("settings.json after the run: %q %v", b, err)
			}
			if b, err := os.ReadFile(filepath.Join(sub, "state")); err != nil || string(b) != "s\n" {
				t.Errorf("the state directory was not written: %q %v", b, err)
			}
			switch {
			case strings.Contains(out, "NOT-STOPPED"):
				t.Error("the run changed its settings and went on")
			case c.stopped && (code == 0 || !strings.Contains(errOut, "the confined run was stopped") || !strings.Contains(errOut, "settings.json")):
				t.Errorf("want the run stopped for its settings, said so; exit %d", code)
			case !c.stopped && (code != 0 || !strings.Contains(out, "REFUSED")):
				t.Errorf("want the write refused; exit %d", code)
			}
		})
	}
}

// TestRunRefusesANestedRun: `gatehouse run` inside a confined run is
// refused, even from a process that dropped the run's environment (as an
// agent's servers may): the run's file says so, on bubblewrap at its
// fixed path, on Landlock in the home the run gives its command.
func TestRunRefusesANestedRun(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			script := `env -i HOME="$HOME" PATH="$PATH" "$0" run -- true 2>&1; echo "nested-exit=$?"`
			out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script, d.Bin)
			if code != 0 || !strings.Contains(out, "already inside a confined run") || strings.Contains(out, "nested-exit=0") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant the nested run refused", code, out, errOut)
			}
		})
	}
}

// TestRunReapsOrphans: a process the agent's children leave behind is
// reaped when it exits, even under an agent that reaps nothing itself
// (here one that became sleep): in a container the run's first process
// stays PID 1 for it, as bubblewrap's does.
func TestRunReapsOrphans(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) { runReapsOrphans(t, startRunDaemon(t, backend, "")) })
	}
}

func runReapsOrphans(t *testing.T, d *clitest.Daemon) {
	name := "gr" + filepath.Base(t.TempDir())[:3] + fmt.Sprint(time.Now().UnixNano()%100000)
	// In a directory of the project: Landlock lets nothing new be made in
	// its root.
	if err := os.MkdirAll(filepath.Join(d.Workspace, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace, "--", "sh", "-c",
		`cp "$(command -v sleep)" "bin/$0" && ("bin/$0" 2 &) && exec "bin/$0" 60`, name)
	cmd.Env = d.Env()
	clitest.Spawn(t, cmd, "gatehouse run")
	// The agent (its argument 60) and its orphan (2) run; then the
	// orphan is neither running nor a zombie.
	procs := func() (agent bool, orphan, zombie int) {
		list, _ := proctree.List()
		for _, p := range list {
			if p.Comm != name {
				continue
			}
			argv := proctree.Cmdline(p.PID)
			switch {
			case p.Zombie:
				zombie++
			case len(argv) == 2 && argv[1] == "60":
				agent = true
			case len(argv) == 2 && argv[1] == "2":
				orphan++
			}
		}
		return agent, orphan, zombie
	}
	clitest.WaitFor(t, 60*time.Second, "the agent and its orphan running", func() bool {
		agent, orphan, _ := procs()
		return agent && orphan == 1
	})
	clitest.WaitFor(t, 20*time.Second, "the orphan reaped", func() bool {
		agent, orphan, zombie := procs()
		return agent && orphan == 0 && zombie == 0
	})
}

// TestRunFromALinkedDirectory: a run started through a symbolic link to
// the project (a shell in ~/src where ~/src links to /data/src) works
// there, at the project's real path, on each backend.
func TestRunFromALinkedDirectory(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			link := filepath.Join(t.TempDir(), "project-link")
			if err := os.Symlink(d.Workspace, link); err != nil {
				t.Fatal(err)
			}
			// In a directory of its own: Landlock lets nothing new at the
			// project's root (see landlocknotes.go).
			if err := os.Mkdir(filepath.Join(d.Workspace, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := d.CLI(t.Context(), "run", "--workspace", link, "--", "sh", "-c", `pwd; echo made > src/through-link.txt`)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			real, _ := filepath.EvalSymlinks(d.Workspace)
			if strings.TrimSpace(out) != real {
				t.Errorf("the run worked in %q, want the project's real path %q", strings.TrimSpace(out), real)
			}
			if b, err := os.ReadFile(filepath.Join(d.Workspace, "src", "through-link.txt")); err != nil || string(b) != "made\n" {
				t.Errorf("the run's file in the project: %q %v", b, err)
			}
		})
	}
}

// TestRunSaysEachToolchainNoteOnce: the terminal is the agent's, so what
// Gatehouse says about the person's PATH is said once, and only when the
// sandbox loses something the person's shell has: an entry that leads
// nowhere goes unmentioned, one refused is named once.
func TestRunSaysEachToolchainNoteOnce(t *testing.T) {
	d := clitest.Start(t)
	shared := filepath.Join(t.TempDir(), "shared-bin")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "no-such-bin") + ":" + shared + ":" + os.Getenv("PATH")
	var env []string
	for _, e := range d.Env() {
		if !strings.HasPrefix(e, "PATH=") && !strings.HasPrefix(e, "GATEHOUSE_DEBUG=") {
			env = append(env, e)
		}
	}
	_, errOut, code := clitest.Run(t.Context(), t, d.Bin, append(env, "PATH="+path), "--data", d.Data, "run", "--workspace", d.Workspace, "--", "true")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if strings.Contains(errOut, "no-such-bin") {
		t.Errorf("stderr names an entry that leads nowhere:\n%s", errOut)
	}
	if n := strings.Count(errOut, shared); n != 1 {
		t.Errorf("stderr names the refused entry %d times, want once:\n%s", n, errOut)
	}
}

// TestRunSaysItWaitsForACard: a run held by the person's workspace card
// says so on its terminal while the card waits, and nothing about a
// checkpoint it is not waiting for; answered, it runs.
func TestRunSaysItWaitsForACard(t *testing.T) {
	d := clitest.Start(t)
	cmd := exec.Command(d.Bin, "--data", d.Data, "run", "--workspace", t.TempDir(), "--", "true")
	cmd.Env = d.Env()
	log, exited := clitest.Spawn(t, cmd, "gatehouse run")
	a := d.WaitApproval(clitest.CardWait)
	clitest.WaitFor(t, 30*time.Second, "the run saying it waits for the card", func() bool {
		return strings.Contains(log.String(), "waiting for you in the Gatehouse app (a card about working in")
	})
	d.Decide(a.ID, "allow", "once", "")
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end once the card was answered")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, log.String())
	}
	if strings.Contains(log.String(), "checkpointing") {
		t.Fatalf("the run said it waited for a checkpoint:\n%s", log.String())
	}
}

// TestLandlockRunSaysWhatGitCannotDo: on Landlock a repository's .git
// takes no new entry in a confined run (it lacks names that steer git,
// config.worktree and commondir), so git in the run itself cannot
// commit; the person is told so in git's terms before the agent starts,
// and the repository is as it was.
func TestLandlockRunSaysWhatGitCannotDo(t *testing.T) {
	d := startRunDaemon(t, "landlock", "")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", d.Workspace, "-c", "user.email=t@example.test", "-c", "user.name=t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(d.Workspace, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	git("commit", "-qm", "first")
	_, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", "echo b >> a.txt && git -c user.email=t@example.test -c user.name=t commit -qam second")
	if code == 0 {
		t.Fatalf("git committed in the run on Landlock; stderr:\n%s", errOut)
	}
	if !strings.Contains(errOut, "git run by the agent itself can read the repository but not stage, commit or switch branches") {
		t.Fatalf("the run did not say what git cannot do; stderr:\n%s", errOut)
	}
	if n := strings.Count(git("log", "--oneline"), "\n"); n != 1 {
		t.Fatalf("%d commits after the run, want the one before", n)
	}
}

// TestRunRefusesAHomeSecretsPlace: an agent started in one of home's
// places for credentials or history (~/.ssh), or in a directory holding
// one (~/.config, which holds ~/.config/gh), is refused at once with a
// sentence, with no card the person might allow: as for home itself.
func TestRunRefusesAHomeSecretsPlace(t *testing.T) {
	home := t.TempDir()
	d := startRunDaemon(t, "bwrap", "", "HOME="+home)
	for _, dir := range []string{".ssh/keys", ".config"} {
		t.Run(dir, func(t *testing.T) {
			ws := filepath.Join(home, dir)
			if err := os.MkdirAll(ws, 0o700); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(ws, "ran")
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			_, errOut, code := clitest.Run(ctx, t, d.Bin, append(d.Env(), "HOME="+home), "--data", d.Data, "run", "--workspace", ws, "--", "touch", marker)
			if code == 0 || !strings.Contains(errOut, "where credentials or history live") {
				t.Fatalf("exit %d, stderr %q; want the refusal", code, errOut)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the command ran")
			}
		})
	}
}

// TestRunWriteOutsideFails: a write outside every path the run is given
// (beside the project, at the root) fails where it is made, rather than
// landing in the sandbox's own root, seeming to work and vanishing with
// the run; on each backend, with the project outside /tmp (whose
// private copy in the sandbox is scratch space by design).
func TestRunWriteOutsideFails(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			base, err := os.MkdirTemp("/var/tmp", "gatehouse-outside-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			proj := filepath.Join(base, "proj")
			// Below the root: Landlock lets nothing new be made at it.
			if err := os.MkdirAll(filepath.Join(proj, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := d.CLI(t.Context(), "workspaces", "add", proj); code != 0 {
				t.Fatalf("workspaces add: %s", errOut)
			}
			out, errOut, code := d.CLI(t.Context(), "run", "--workspace", proj, "--", "sh", "-c",
				`for p in ../sibling.txt /new-at-root; do if echo x > "$p"; then echo "$p written"; else echo "$p refused"; fi; done; echo in > src/inside.txt`)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, p := range []string{"../sibling.txt", "/new-at-root"} {
				if !strings.Contains(out, p+" refused") {
					t.Errorf("the run was not refused %s:\n%s%s", p, out, errOut)
				}
			}
			if _, err := os.Stat(filepath.Join(base, "sibling.txt")); err == nil {
				t.Error("the write beside the project reached the host")
			}
			if b, err := os.ReadFile(filepath.Join(proj, "src", "inside.txt")); err != nil || string(b) != "in\n" {
				t.Errorf("the write inside the project: %q %v", b, err)
			}
		})
	}
}

// TestRunInALinkedWorktree: an agent started in a linked worktree (`git
// worktree add`, as agents make for parallel work, of a main worktree's
// .git or of a bare repository) or in a submodule's
// checkout finds its repository, whose history lives beside the
// workspace, and commits to it, while the repository's config and hooks
// stay out of its reach; on each backend.
func TestRunInALinkedWorktree(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			git := func(dir string, args ...string) string {
				t.Helper()
				out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.test", "-c", "user.name=t", "-c", "protocol.file.allow=always"}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			repo := func(dir string) {
				t.Helper()
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				git(dir, "init", "-q")
				if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				git(dir, "add", "a.txt")
				git(dir, "commit", "-qm", "first")
			}
			for _, layout := range []struct {
				name string
				// make returns the workspace and the git dir beside it.
				make func(base string) (ws, common string)
				// indexBeside: git makes its index lock directly in that
				// git dir, whose config and hooks keep it from taking new
				// entries under Landlock (as a workspace's own .git).
				indexBeside bool
			}{
				{"linked worktree", func(base string) (string, string) {
					main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
					repo(main)
					git(main, "worktree", "add", "-q", wt, "-b", "feature")
					return wt, filepath.Join(main, ".git")
				}, false},
				{"worktree of a bare repository", func(base string) (string, string) {
					src, bare, wt := filepath.Join(base, "src"), filepath.Join(base, "repo.bare"), filepath.Join(base, "wt")
					repo(src)
					git(base, "clone", "-q", "--bare", src, bare)
					git(bare, "worktree", "add", "-q", wt, "-b", "feature")
					return wt, bare
				}, false},
				{"submodule", func(base string) (string, string) {
					lib, super := filepath.Join(base, "lib"), filepath.Join(base, "super")
					repo(lib)
					repo(super)
					git(super, "submodule", "add", "-q", lib, "lib")
					return filepath.Join(super, "lib"), filepath.Join(super, ".git", "modules", "lib")
				}, true},
			} {
				t.Run(layout.name, func(t *testing.T) {
					wt, common := layout.make(t.TempDir())
					config := git(wt, "config", "--local", "--list")
					if _, errOut, code := d.CLI(t.Context(), "workspaces", "add", wt); code != 0 {
						t.Fatalf("workspaces add: %s", errOut)
					}
					out, errOut, code := d.CLI(t.Context(), "run", "--workspace", wt, "--", "sh", "-c",
						`git log --oneline && echo b >> a.txt && git -c user.email=t@example.test -c user.name=t commit -qam second && echo committed
if echo x >> `+common+`/config; then echo "config written"; fi
if touch `+common+`/hooks/pre-commit; then echo "hook written"; fi`)
					if strings.Contains(out, "written") {
						t.Errorf("the run changed the repository's settings:\n%s", out)
					}
					const cannotCommit = "can read the repository but not stage, commit"
					if backend == "landlock" && layout.indexBeside {
						// Said before the run, and so it went.
						if !strings.Contains(errOut, cannotCommit) || strings.Contains(out, "committed") || !strings.Contains(out, "first") {
							t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
						}
						return
					}
					if code != 0 || !strings.Contains(out, "first") || !strings.Contains(out, "committed") || strings.Contains(errOut, cannotCommit) {
						t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
					}
					if log := git(wt, "log", "--oneline"); !strings.Contains(log, "second") {
						t.Errorf("the run's commit did not land:\n%s", log)
					}
					if got := git(wt, "config", "--local", "--list"); got != config {
						t.Errorf("config changed:\n%s\nwas\n%s", got, config)
					}
					if _, err := os.Stat(filepath.Join(common, "hooks", "pre-commit")); err == nil {
						t.Error("a hook was made")
					}
					// The run's checkpoints hold the git dir: the undo its
					// session names takes the commit back.
					sess := listSessions(t, d)[0].ID
					shown, _, _ := d.CLI(t.Context(), "sessions", sess)
					_, undo, ok := strings.Cut(shown, "Undo all of it with: gatehouse ")
					if !ok {
						t.Fatalf("no undo named:\n%s", shown)
					}
					undo, _, _ = strings.Cut(undo, " (")
					if o, e, code := d.CLI(t.Context(), strings.Fields(undo)...); code != 0 {
						t.Fatalf("%s: %s%s", undo, o, e)
					}
					if log := git(wt, "log", "--oneline"); strings.Contains(log, "second") {
						t.Errorf("the run's commit is still there after its undo:\n%s", log)
					}
				})
			}
		})
	}
}

// TestGitCredentialStoreStaysHidden: git's credential store in the
// person's ~/.config/git, whose directory every sandbox shows for git's
// config and hooks, is hidden from a command and from a confined run
// alike, on each backend, and so are the credentials people keep in
// their git config (a token in an insteadOf URL, an extra header),
// while the rest of that config still works.
func TestGitCredentialStoreStaysHidden(t *testing.T) {
	const token, header = "ghp_Zx8Kq2Lm4Np6Rt8Vw0Yb3Cd5Ef7Gh9Jk1Mn3P", "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	reverse := func(s string) string {
		b := []byte(s)
		slices.Reverse(b)
		return string(b)
	}
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			home := t.TempDir()
			gitDir := filepath.Join(home, ".config", "git")
			if err := os.MkdirAll(gitDir, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, body := range map[string]string{
				".config/git/credentials": "https://p:" + token + "@forge.example.test\n",
				".config/git/config":      "[user]\n\tname = Person Example\n\temail = person@example.test\n[url \"https://" + token + "@forge.example.test/\"]\n\tinsteadOf = https://forge.example.test/\n",
				".gitconfig":              "[http]\n\textraHeader = Authorization: Bearer " + header + "\n[include]\n\tpath = ~/.config/git/work.inc\n",
				".config/git/work.inc":    "[url \"https://x:" + token + "@work.example.test/\"]\n\tinsteadOf = https://work.example.test/\n",
			} {
				if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			config := backendConfig(t, backend)
			if backend == "container" {
				config = containerGitConfig(t)
			}
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			clitest.WriteConfig(t, ws, "config.toml", config)
			d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"HOME=" + home})
			// rev: what the output's redaction would not recognise. The
			// CLI's XDG_CONFIG_HOME is the test's, not the home's. A
			// container's command has a home of its own, and the person's
			// config as its GIT_CONFIG_GLOBAL.
			script := `rev "$HOME/.config/git/credentials" "$HOME/.config/git/config" "$HOME/.config/git/work.inc" "$HOME/.gitconfig" ${GIT_CONFIG_GLOBAL:+"$GIT_CONFIG_GLOBAL"}; env -u XDG_CONFIG_HOME git config user.name`
			check := func(route, out string) {
				t.Helper()
				if strings.Contains(out, reverse(token)) || strings.Contains(out, reverse(header)) {
					t.Errorf("%s read a credential:\n%s", route, out)
				}
				if !strings.Contains(out, "Person Example") {
					t.Errorf("%s lost git's config beside it:\n%s", route, out)
				}
			}
			s := d.MCP(t.Context(), "creds")
			res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", script}}})
			if err != nil {
				t.Fatal(err)
			}
			out, _ := res.StructuredContent.(map[string]any)["stdout"].(string)
			check("a command", out)
			// The agent's own commit carries the person's name, as on the
			// host (the container's had none).
			res, err = s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c",
				`cd "${TMPDIR:-/tmp}" && git init -q c && cd c && env -u XDG_CONFIG_HOME git commit --allow-empty -qm x && git log -1 --format=%an`}}})
			if err != nil {
				t.Fatal(err)
			}
			if out, _ := res.StructuredContent.(map[string]any)["stdout"].(string); strings.TrimSpace(out) != "Person Example" {
				t.Errorf("a commit in a command: %s", clitest.Text(t, res))
			}
			out, errOut, _ := runIn(t.Context(), t, d, "--", "sh", "-c", script)
			check("a confined run", out+errOut)
		})
	}
}

// TestGitReadsWhatTheConfigNames: a person who keeps their name and
// email in a file their git config includes (~/.gitconfig.local, or an
// includeIf's ~/.gitconfig-work for the repositories under one
// directory) has the same identity in a command and a confined run as
// on the host, on each backend, and the credentials in such a file stay
// out; their global ignore rules (core.excludesFile) hold there too, so
// `git add -A` leaves out what it leaves out on the host, and their own
// hooks (core.hooksPath) run before the agent's commits, inside.
func TestGitReadsWhatTheConfigNames(t *testing.T) {
	const token = "ghp_Zx8Kq2Lm4Np6Rt8Vw0Yb3Cd5Ef7Gh9Jk1Mn3P"
	reversed := []byte(token)
	slices.Reverse(reversed)
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			home, base := t.TempDir(), t.TempDir()
			ws := filepath.Join(base, "ws")
			for name, body := range map[string]string{
				".gitignore_global": "*.swp\n",
				".gitconfig":        "[core]\n\texcludesFile = ~/.gitignore_global\n\thooksPath = ~/.githooks\n[user]\n\tname = Person Example\n[include]\n\tpath = ~/.gitconfig.local\n[includeIf \"gitdir:" + ws + "/\"]\n\tpath = ~/.gitconfig-work\n",
				".gitconfig.local":  "[user]\n\temail = person@example.test\n[url \"https://x:" + token + "@forge.example.test/\"]\n\tinsteadOf = https://forge.example.test/\n",
				".gitconfig-work":   "[user]\n\temail = work@example.test\n",
			} {
				if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// The person's own guard before every commit, in the sandbox too.
			if err := os.MkdirAll(filepath.Join(home, ".githooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".githooks", "pre-commit"), []byte("#!/bin/sh\necho the global pre-commit hook ran\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			config := backendConfig(t, backend)
			if backend == "container" {
				config = containerGitConfig(t)
			}
			clitest.WriteConfig(t, ws, "config.toml", config)
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			hostGitIn(t, ws, "init", "-q")
			d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"HOME=" + home})
			// In the project (under the includeIf's directory), then in a
			// repository elsewhere; rev: what redaction would not know.
			script := `rev "$HOME/.gitconfig.local" ` + filepath.Join(home, ".gitconfig.local") + ` 2>/dev/null
git config user.email
git check-ignore -q notes.swp && echo "swp ignored"
cd "${TMPDIR:-/tmp}" && rm -rf c && git init -q c && cd c && git config user.email && git commit -q --allow-empty -m x 2>&1`
			check := func(route, out string) {
				t.Helper()
				if strings.Contains(out, string(reversed)) {
					t.Errorf("%s read a credential:\n%s", route, out)
				}
				work, local := strings.Index(out, "work@example.test"), strings.Index(out, "person@example.test")
				if work < 0 || local < work {
					t.Errorf("%s: want work@example.test in the project, then person@example.test elsewhere:\n%s", route, out)
				}
				if !strings.Contains(out, "swp ignored") {
					t.Errorf("%s: the global ignore rules do not hold:\n%s", route, out)
				}
				if !strings.Contains(out, "the global pre-commit hook ran") {
					t.Errorf("%s: the person's global hook did not run:\n%s", route, out)
				}
			}
			s := d.MCP(t.Context(), "identity")
			res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", "env -u XDG_CONFIG_HOME sh -c '" + script + "'"}}})
			if err != nil {
				t.Fatal(err)
			}
			check("a command", clitest.Text(t, res))
			out, errOut, _ := runIn(t.Context(), t, d, "--", "env", "-u", "XDG_CONFIG_HOME", "sh", "-c", script)
			check("a confined run", out+errOut)
		})
	}
}

// TestRunLeavesCredentialsOutOfItsEnvironment: what the person's shell
// holds as credentials stays out of a confined run's environment, by its
// name (GITHUB_TOKEN) or by its value (a database URL with its
// password), while the rest passes.
func TestRunLeavesCredentialsOutOfItsEnvironment(t *testing.T) {
	d := startRunDaemon(t, "bwrap", "")
	env := append(d.Env(), "GITHUB_TOKEN=ghp_Zx8Kq2Lm4Np6Rt8Vw0Yb3Cd5Ef7Gh9Jk1Mn3P",
		"DATABASE_URL=postgres://app:pw-4410@db.example.test/app", "APP_MODE=dev-2291")
	out, errOut, code := clitest.Run(t.Context(), t, d.Bin, env, "--data", d.Data, "run", "--workspace", d.Workspace, "--", "env")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, leaked := range []string{"ghp_Zx8K", "pw-4410"} {
		if strings.Contains(out, leaked) {
			t.Errorf("the run's environment holds %s:\n%s", leaked, out)
		}
	}
	if !strings.Contains(out, "APP_MODE=dev-2291") {
		t.Errorf("the run's environment lost APP_MODE:\n%s", out)
	}
}

// TestRunWorksInTheAgentsOtherDirectories: a directory the agent's own
// flag names to work in (claude --add-dir) is a workspace of the run too:
// after the person's card for one no root serves, the agent writes there
// (a stand-in claude here, on PATH); one the person refuses stays out,
// and the run says so before the agent starts.
func TestRunWorksInTheAgentsOtherDirectories(t *testing.T) {
	d := startRunDaemon(t, "bwrap", "")
	base := t.TempDir()
	bin, allowed, refused := filepath.Join(base, "bin"), filepath.Join(base, "allowed"), filepath.Join(base, "refused")
	for _, dir := range []string{bin, allowed, refused} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Writes into every directory named after --add-dir.
	script := "#!/bin/sh\nfor a; do if [ \"$prev\" = --add-dir ] || [ \"$many\" = 1 ] && [ -d \"$a\" ]; then many=1; echo made > \"$a/by-agent.txt\" && echo \"wrote $a\"; fi; prev=$a; done\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range 2 {
			a := d.WaitApproval(clitest.CardWait)
			if !strings.Contains(a.Reason, "asks to work in") {
				t.Errorf("card %q", a.Reason)
			}
			decide := "allow"
			if strings.Contains(a.Reason, refused) {
				decide = "deny"
			}
			d.Decide(a.ID, decide, "once", "")
		}
	}()
	env := append(d.Env(), "PATH="+bin+":/usr/bin:/bin", "CLAUDE_CONFIG_DIR="+filepath.Join(base, "claude-state"))
	out, errOut, code := clitest.Run(t.Context(), t, d.Bin, env, "--data", d.Data, "run", "--workspace", d.Workspace, "claude", "--add-dir", allowed, refused)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(allowed, "by-agent.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the allowed directory: %q %v\nstdout:\n%s\nstderr:\n%s", b, err, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(refused, "by-agent.txt")); err == nil {
		t.Error("the agent wrote in the directory the person refused")
	}
	if !strings.Contains(errOut, "claude will not see "+refused) {
		t.Errorf("the run did not say what it does not show:\n%s", errOut)
	}
}
