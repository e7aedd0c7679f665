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
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestRunConfinesACommand: a command under `gatehouse run`, on each
// backend, writes its project, and nothing else: a canary in the real
// home, the project's .env, a file outside, a listener on the host's
// loopback are all out of reach, for the command and for a child it
// starts in a session of its own; a fetch through the proxy of a host the
// policy allows works; its exit status is its own; its session is
// confined.
func TestRunConfinesACommand(t *testing.T) {
	onEachRunBackend(t, runConfinesACommand)
}

// runBackends are the backends `gatehouse run` confines with, each with
// the config's [sandbox] table selecting it.
var runBackends = []struct {
	name   string
	config func(*testing.T) string
}{
	{"bwrap", func(*testing.T) string { return "" }},
	{"container", containerConfig},
}

// onEachRunBackend runs test once per backend, as a subtest, with a
// daemon whose config selects it (startRunDaemon, its fetch server
// answering runFetchBody at fetchURL).
func onEachRunBackend(t *testing.T, test func(t *testing.T, d *clitest.Daemon, fetchURL string, inContainer bool)) {
	for _, b := range runBackends {
		t.Run(b.name, func(t *testing.T) {
			d, fetchURL := startRunDaemon(t, b.config(t), runFetchBody)
			test(t, d, fetchURL, b.name == "container")
		})
	}
}

// runFetchBody is what the fetch server answers.
const runFetchBody = "FETCHED-VIA-PROXY"

// runFetchHost is the made-up host the confined runs' proxy fetches
// reach (test_only_hosts maps it to a local server).
const runFetchHost = "fetch.run.example.test"

// startRunDaemon is a daemon whose config is sandbox (a [sandbox] table,
// or "") with runFetchHost allowed through the proxy to a server
// answering body.
func startRunDaemon(t *testing.T, sandbox, body string) (d *clitest.Daemon, fetchURL string) {
	t.Helper()
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	go http.Serve(srv, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body)) }))
	port := srv.Addr().(*net.TCPAddr).Port
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "config.toml", fmt.Sprintf("%s\n[network]\ntest_only_hosts = { %q = \"127.0.0.1\" }\n", sandbox, runFetchHost))
	clitest.WriteConfig(t, ws, "policy.toml", fmt.Sprintf(`[[rule]]
action = "allow"
tool = "network"
domains = [%q]
ports = [%d]
`, runFetchHost, port))
	return clitest.StartWith(t, filepath.Join(base, "data"), ws), fmt.Sprintf("http://%s:%d/", runFetchHost, port)
}

func runConfinesACommand(t *testing.T, d *clitest.Daemon, fetchURL string, inContainer bool) {
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
	outside := filepath.Join(t.TempDir(), "outside.txt")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("HOST-LISTENER")) }))

	// The child, in a session of its own, tries the same, and writes
	// outside under another name.
	script := `test -e /run/.containerenv && echo IN-A-CONTAINER; ls /sys/class 2>/dev/null | head -1 | sed s/^/SYS-/; cat "$1" 2>&1; cat .env; echo made > inside.txt && echo WROTE-INSIDE; echo x > "$2" 2>&1;
curl -s -m 3 --noproxy '*' "http://$3/" 2>&1; echo; curl -s -m 10 "$4"; echo;
setsid sh -c 'cat "$1" 2>&1; echo x > "$2.child" 2>&1; curl -s -m 3 --noproxy "*" "http://$3/" 2>&1; echo; curl -s -m 10 "$4" | sed s/^/CHILD-/; echo' sh "$@"; exit 7`
	out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script, "sh", canary, outside, ln.Addr().String(), fetchURL)
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if code != 7 {
		t.Fatalf("exit %d, want the command's own 7", code)
	}
	if got := strings.Contains(out, "IN-A-CONTAINER"); got != inContainer {
		t.Fatalf("ran in a container: %v, want %v", got, inContainer)
	}
	for _, leak := range []string{"CANARY-5521", "run-secret-7781", "HOST-LISTENER", "SYS-"} {
		if strings.Contains(out, leak) {
			t.Errorf("the confined command saw %s", leak)
		}
	}
	if !strings.Contains(out, "WROTE-INSIDE") {
		t.Error("the confined command could not write its project")
	}
	if !strings.Contains(out, "\n"+runFetchBody) || !strings.Contains(out, "CHILD-"+runFetchBody) {
		t.Error("the command or its child could not fetch an allowed host through the proxy")
	}
	if b, err := os.ReadFile(filepath.Join(d.Workspace, "inside.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("inside.txt on the host: %q %v", b, err)
	}
	for _, f := range []string{outside, outside + ".child"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("the confined command wrote %s outside its project", f)
		}
	}
	// Each fetch is audited with the process inside that made it.
	conns := d.Events("kind=network.connection")
	if len(conns) < 2 {
		t.Errorf("connections audited: %v", conns)
	}
	for _, c := range conns {
		if p, _ := c["payload"].(map[string]any)["process"].(string); !strings.Contains(p, "curl") {
			t.Errorf("connection not attributed to curl: %v", c["payload"])
		}
	}
	// One session, confined, ended with the command's status.
	started := d.Events("kind=run.started")
	if len(started) != 1 {
		t.Fatalf("run.started rows: %v", started)
	}
	sess, _ := started[0]["session"].(string)
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
	if ended := d.Events("kind=run.ended"); len(ended) != 1 || ended[0]["payload"].(map[string]any)["exit"] != float64(7) {
		t.Errorf("run.ended rows: %v", ended)
	}
	// The run was checkpointed around: what it wrote, no hook having seen
	// it, rolls back as one call.
	run, _ := started[0]["payload"].(map[string]any)["run"].(string)
	if out, errOut, code := d.CLI(t.Context(), "rollback", sess, "--call", "run-"+run); code != 0 {
		t.Fatalf("rollback of the run: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "inside.txt")); err == nil {
		t.Error("inside.txt is still there after the run was rolled back")
	}
}

// TestRunKillSwitchEndsTheTree: the kill switch ends a confined run and
// every process in it, a daemonised grandchild included, on each
// backend; a container is removed with its run.
func TestRunKillSwitchEndsTheTree(t *testing.T) {
	onEachRunBackend(t, func(t *testing.T, d *clitest.Daemon, _ string, inContainer bool) {
		runKillSwitchEndsTheTree(t, d, inContainer)
	})
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
	d, _ := startRunDaemon(t, containerConfig(t), "")
	cmd, _, exited, sleepers := startSleepers(t, d)
	cmd.Process.Kill()
	<-exited
	waitGone(t, d, sleepers, true)
}

func runKillSwitchEndsTheTree(t *testing.T, d *clitest.Daemon, inContainer bool) {
	cmd, log, exited, sleepers := startSleepers(t, d)
	if !inContainer {
		// Every process of the run descends from `gatehouse run` on the
		// host (the daemonised sleeper from the sandbox's own init).
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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := clitest.Run(t.Context(), t, d.Bin, append(d.Env(), c.env...), append([]string{"--data", d.Data, "run", "--workspace", d.Workspace}, c.args...)...)
			if code == 0 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want a failure saying %q", code, errOut, c.want)
			}
		})
	}
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
// and exits ends the run, and the child with it, on each backend:
// nothing it started is left running unconfined.
func TestRunEndsWhatTheCommandLeftBehind(t *testing.T) {
	onEachRunBackend(t, func(t *testing.T, d *clitest.Daemon, _ string, _ bool) { runEndsWhatTheCommandLeftBehind(t, d) })
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

// TestRunReapsOrphans: a process the agent's children leave behind is
// reaped when it exits, even under an agent that reaps nothing itself
// (here one that became sleep): in a container the run's first process
// stays PID 1 for it, as bubblewrap's does.
func TestRunReapsOrphans(t *testing.T) {
	onEachRunBackend(t, func(t *testing.T, d *clitest.Daemon, _ string, _ bool) {
		name := "gr" + filepath.Base(t.TempDir())[:3] + fmt.Sprint(time.Now().UnixNano()%100000)
		cmd := exec.Command(d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace, "--", "sh", "-c",
			`cp "$(command -v sleep)" "./$0" && ("./$0" 2 &) && exec "./$0" 60`, name)
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
	})
}
