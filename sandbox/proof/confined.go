package proof

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// The whole-agent battery: probes run as `gatehouse run` runs an agent,
// started through agentbox (bubblewrap, the run's first process, its
// filters; or Landlock, the supervising helper, its filters) with no
// daemon. The run's two hand-off listeners, the proxy's
// and the agent routes', are served by a test server that answers every request
// with 403, so a row can tell the proxy was reached and nothing passed.

// ConfinedBackends are the backends the battery lays a run out on itself,
// the first its default; the container runs it too, as a Layout that
// names its Container says (`gatehouse doctor`).
var ConfinedBackends = []string{"bwrap", "landlock"}

// Whole-agent check names, in battery order.
const (
	CheckRunHomeCanary = "agent: home canary unreadable"
	CheckRunWrite      = "agent: write outside workspace fails"
	CheckRunWorkspace  = "agent: protected paths read-only, secrets hidden"
	CheckRunNetwork    = "agent: no network but the proxy"
	CheckRunOwnServer  = "agent: a server it starts answers it, off the network"
	CheckRunServer     = "agent: a server it starts (setsid) is confined too"
	CheckRunSettings   = "agent: its settings stay read-only"
	CheckRunTerminal   = "agent: TIOCSTI into its terminal refused"
	CheckRunKill       = "agent: ending the run ends a daemonised grandchild"
)

// ConfinedChecks lists the whole-agent battery's checks in order.
var ConfinedChecks = []string{
	CheckRunHomeCanary, CheckRunWrite, CheckRunWorkspace, CheckRunNetwork, CheckRunOwnServer,
	CheckRunServer, CheckRunSettings, CheckRunTerminal, CheckRunKill,
}

// ConfinedOptions tune the whole-agent battery.
type ConfinedOptions struct {
	// Backend is one of ConfinedBackends, default the first: the
	// container is started as Layout's spec says (its Container), and
	// needs no bubblewrap.
	Backend string
	// Init is the gatehouse binary: its TerminalProbeEntry is the
	// terminal row's probe, and its agentbox.InitEntry starts each probe
	// unless Layout names another first process (the stand-alone helper,
	// as `gatehouse run` does). A Layout must show it inside.
	Init string
	// Bwrap is bubblewrap's path; default found on PATH.
	Bwrap string
	// Home is the real home the canary is planted in; default
	// os.UserHomeDir. It must be the home Layout hides.
	Home string
	// Scratch is where the test workspace is created; default os.TempDir.
	Scratch string
	// Layout, if set, lays out the run for workspace ws as `gatehouse
	// run` does for a plain command (its home, hidden paths, toolchains,
	// environment); the battery then sets the command, its directory,
	// its files and the agent port. Without it, the battery lays out a
	// run itself: the workspace's protected paths and secrets from
	// protect.Scan, a fresh home, the proxy's environment.
	Layout func(ws string) (agentbox.Spec, error)
	Logger *slog.Logger
}

// RunConfined runs the whole-agent battery and returns one row per check.
// It cleans up after itself: canary, workspace, processes.
func RunConfined(ctx context.Context, o ConfinedOptions) []Row {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.Backend == "" {
		o.Backend = ConfinedBackends[0]
	}
	fail := func(out Outcome, reason string) []Row {
		rows := make([]Row, 0, len(ConfinedChecks))
		for _, c := range ConfinedChecks {
			rows = append(rows, Row{Backend: o.Backend, Check: c, Outcome: out, Reason: reason})
		}
		return rows
	}
	if o.Bwrap == "" && o.Backend == "bwrap" {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			return fail(Unavailable, "bubblewrap (bwrap) is not installed; `gatehouse run` needs it")
		}
		o.Bwrap = p
	}
	if o.Init == "" {
		return fail(Unavailable, "no gatehouse binary to start the probes with")
	}
	root, err := os.MkdirTemp(o.Scratch, "gatehouse-doctor-run-")
	if err != nil {
		return fail(Fail, fmt.Sprintf("cannot create a scratch directory: %v", err))
	}
	defer os.RemoveAll(root)
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return fail(Fail, fmt.Sprintf("cannot resolve the scratch directory: %v", err))
	}
	c := &confinedEnv{o: o, root: root, ws: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside"),
		state: filepath.Join(root, "state"), secret: "gatehouse-run-secret-" + randHex(16)}
	// The workspace writes that must work go to a subdirectory, which
	// Landlock grants whole: it cannot let a new file be made beside a
	// read-only one (the workspace root).
	for _, d := range []string{c.ws, c.outside, c.state, filepath.Join(c.ws, ".git", "hooks"), filepath.Join(c.ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail(Fail, fmt.Sprintf("cannot create the test workspace: %v", err))
		}
	}
	if err := os.WriteFile(filepath.Join(c.ws, ".git", "config"), []byte(gitConfig), 0o644); err != nil {
		return fail(Fail, fmt.Sprintf("cannot create the test workspace: %v", err))
	}
	if err := plantWorkspace(c.ws, c.secret); err != nil {
		return fail(Fail, fmt.Sprintf("cannot create the test workspace: %v", err))
	}
	c.settings = filepath.Join(c.state, "settings.json")
	if err := os.WriteFile(c.settings, []byte(settingsBody), 0o644); err != nil {
		return fail(Fail, fmt.Sprintf("cannot create the agent's settings: %v", err))
	}
	c.canary = "gatehouse-canary-" + randHex(16)
	c.canaryPath = filepath.Join(o.Home, ".gatehouse-doctor-canary-"+randHex(4))
	if err := os.WriteFile(c.canaryPath, []byte(c.canary), 0o600); err != nil {
		return fail(Unavailable, fmt.Sprintf("cannot plant the canary in %s: %v", o.Home, err))
	}
	defer os.Remove(c.canaryPath)
	c.homePwned = filepath.Join(o.Home, ".gatehouse-doctor-pwned-"+randHex(4))
	defer os.Remove(c.homePwned)

	// The agent's own probe, then the same from a server it detaches.
	var agent, server probed
	rowsOf := []func() (Outcome, string){
		func() (Outcome, string) { agent = c.probe(ctx, false); return agent.canaryRow() },
		func() (Outcome, string) { return agent.writeRow() },
		func() (Outcome, string) { return agent.workspaceRow() },
		func() (Outcome, string) { return agent.networkRow() },
		func() (Outcome, string) { return agent.ownServerRow() },
		func() (Outcome, string) { server = c.probe(ctx, true); return server.serverRow() },
		func() (Outcome, string) { return c.checkSettings(ctx) },
		func() (Outcome, string) { return c.checkTerminal(ctx) },
		func() (Outcome, string) { return c.checkKill(ctx) },
	}
	rows := make([]Row, 0, len(rowsOf))
	for i, f := range rowsOf {
		out, reason := f()
		rows = append(rows, Row{Backend: o.Backend, Check: ConfinedChecks[i], Outcome: out, Reason: reason})
	}
	return rows
}

const settingsBody = `{"hooks":{"PreToolUse":[{"command":"gatehouse hook"}]}}` + "\n"

type confinedEnv struct {
	o                  ConfinedOptions
	root, ws, outside  string
	state, settings    string // the agent's state directory, its settings in it
	secret             string // in the workspace's .env files
	canary, canaryPath string
	homePwned          string
}

// refuser serves a hand-off listener: it counts connections and answers
// every request with 403.
type refuser struct{ conns atomic.Int32 }

const refused = "gatehouse-doctor-refused"

func (r *refuser) serve(ln net.Listener) {
	body := refused + "\n"
	serveCanned(ln, &r.conns, fmt.Sprintf("HTTP/1.1 403 Forbidden\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body))
}

// agentPort is where the probes' agent routes listen inside (any port:
// the sandbox has a network namespace of its own).
const agentPort = 47311

// box is one confined run of argv: its stdout and stderr, its exit
// status, and what reached its listeners.
type box struct {
	stdout, stderr []byte
	code           int
	err            error
	proxy, agent   *refuser
	// violations are what the run changed that was put back.
	violations []sandbox.Violation
}

// spec lays out a run of argv in the workspace.
func (c *confinedEnv) spec(argv []string) (agentbox.Spec, error) {
	var s agentbox.Spec
	if c.o.Layout != nil {
		var err error
		if s, err = c.o.Layout(c.ws); err != nil {
			return s, err
		}
	} else {
		w, err := protect.Scan(c.ws, protect.Exposure{})
		if err != nil {
			return s, err
		}
		s = agentbox.Spec{
			Home: c.o.Home, Workspaces: []string{c.ws}, Protected: w.Protected.Existing,
			Hidden: append(w.Hidden(), sandbox.SensitiveSystemFiles()...),
			Env:    sandbox.ProxyEnv([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "HOME=" + c.o.Home}, agentbox.ProxyAddr),
		}
	}
	s.Bwrap, s.Landlock, s.Argv, s.Dir, s.AgentPort = c.o.Bwrap, c.o.Backend == "landlock", argv, c.ws, agentPort
	if s.Init == "" {
		s.Init = c.o.Init
	}
	// The agent's state directory read-write, its settings read-only over
	// it, as a profile's are; on Landlock guarded, as those of an agent
	// that makes files beside them are (the weaker of its two ways).
	s.ReadWrite = append(s.ReadWrite, c.state)
	if s.Landlock {
		s.Guarded = append(s.Guarded, c.settings)
	} else {
		s.ReadOnlyOver = append(s.ReadOnlyOver, c.settings)
	}
	return s, nil
}

// run starts argv confined and waits for it, at most 60 s; started, if
// set, is called once the run is up and may end it.
func (c *confinedEnv) run(ctx context.Context, argv []string, stdin *os.File, started func(*agentbox.Box)) box {
	var r box
	s, err := c.spec(argv)
	if err != nil {
		r.err = fmt.Errorf("lay out the run: %w", err)
		return r
	}
	files := make([]*os.File, 2)
	for i := range files {
		if files[i], err = os.CreateTemp(c.root, "out-"); err != nil {
			r.err = err
			return r
		}
		defer files[i].Close()
	}
	if stdin == nil {
		if stdin, err = os.Open(os.DevNull); err != nil {
			r.err = err
			return r
		}
		defer stdin.Close()
	}
	s.Stdin, s.Stdout, s.Stderr = stdin, files[0], files[1]
	b, err := agentbox.Start(ctx, s)
	if err != nil {
		r.err = err
		return r
	}
	r.proxy, r.agent = &refuser{}, &refuser{}
	go r.proxy.serve(b.Proxy)
	go r.agent.serve(b.Agent)
	timeout := time.AfterFunc(60*time.Second, b.Kill)
	defer timeout.Stop()
	if started != nil {
		started(b)
	}
	r.code, r.err = b.Wait()
	r.violations = b.Violations()
	r.stdout, _ = os.ReadFile(files[0].Name())
	r.stderr, _ = os.ReadFile(files[1].Name())
	return r
}

// confinementScript is what an agent, or a server it starts, tries: read
// the home canary ($1, and by name in $HOME), write outside the workspace
// ($2, $3) and in it, change a protected path, read the workspace's
// .env, connect to the host's listener ($4) and reach the proxy.
const confinementScript = `cat "$1" 2>&1; cat "$HOME/$(basename "$1")" 2>&1
echo pwned > "$2" 2>&1; echo pwned > "$3" 2>&1
echo made > "src/probe-$5" && echo WROTE-WORKSPACE
echo pwned > .git/hooks/pre-commit 2>&1 && echo WROTE-HOOK
cat .env 2>&1
if ! command -v bash >/dev/null 2>&1; then echo NO-BASH; echo PROBED; exit 0; fi
bash -c 'echo hi > /dev/tcp/127.0.0.1/$0' "$4" 2>&1 && echo DIRECT-CONNECTED
hp=${HTTP_PROXY#http://}
bash -c 'exec 3<>/dev/tcp/$0/$1 && printf "GET http://doctor.example.test/ HTTP/1.1\r\nHost: doctor.example.test\r\n\r\n" >&3 && cat <&3' "${hp%:*}" "${hp##*:}" 2>&1
if command -v python3 >/dev/null 2>&1; then python3 -c '` + ownServerPython + `' "$(readlink /proc/self/ns/net)" 2>&1; else echo NO-PYTHON; fi
echo PROBED`

// serverScript detaches the probe as a server would (setsid, stdin
// closed, output to a file) and waits for it to finish, at most 20 s:
// the run ends when the agent does.
const serverScript = `setsid sh -c "$0" sh "$@" > src/server-$5.out 2>&1 < /dev/null &
i=0; while ! grep -q PROBED src/server-$5.out 2>/dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
cat src/server-$5.out`

// probed is what one confinement probe showed.
type probed struct {
	box
	canary, secret string
	accepted       int32    // connections the host's listener took
	wrote          []string // files made outside the workspace
	hook           bool     // .git/hooks/pre-commit written
}

func (c *confinedEnv) probe(ctx context.Context, server bool) probed {
	p := probed{canary: c.canary, secret: c.secret}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		p.err = fmt.Errorf("cannot listen on 127.0.0.1: %w", err)
		return p
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	tag := randHex(4)
	outside := filepath.Join(c.outside, "pwned-"+tag)
	args := []string{c.canaryPath, outside, c.homePwned, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), tag}
	argv := append([]string{"/bin/sh", "-c", confinementScript, "sh"}, args...)
	if server {
		argv = append([]string{"/bin/sh", "-c", serverScript, confinementScript}, args...)
	}
	p.box = c.run(ctx, argv, nil, nil)
	time.Sleep(100 * time.Millisecond) // a connection that got through is accepted
	p.accepted = accepted.Load()
	for _, t := range []string{outside, c.homePwned} {
		if _, err := os.Lstat(t); err == nil {
			p.wrote = append(p.wrote, t)
		}
	}
	if b, err := os.ReadFile(filepath.Join(c.ws, ".git", "hooks", "pre-commit")); err == nil && bytes.Contains(b, []byte("pwned")) {
		p.hook = true
	}
	return p
}

// failed is the reason a probe's run failed, "" if it ran to the end.
func (p probed) failed() string {
	switch {
	case p.err != nil:
		return fmt.Sprintf("run failed: %v", p.err)
	case !bytes.Contains(p.stdout, []byte("PROBED")):
		return fmt.Sprintf("the probe did not finish (exit %d): %s", p.code, firstLine(append(p.stderr, p.stdout...)))
	}
	return ""
}

func (p probed) all() []byte { return append(append([]byte{}, p.stdout...), p.stderr...) }

func (p probed) canaryRow() (Outcome, string) {
	if why := p.failed(); why != "" {
		return Fail, why
	}
	if bytes.Contains(p.all(), []byte(p.canary)) {
		return Fail, "the agent read a file in the real $HOME"
	}
	return Pass, "cat refused: " + firstLine(p.stdout)
}

func (p probed) writeRow() (Outcome, string) {
	if why := p.failed(); why != "" {
		return Fail, why
	}
	if len(p.wrote) > 0 {
		return Fail, "the agent created " + p.wrote[0]
	}
	if !bytes.Contains(p.stdout, []byte("WROTE-WORKSPACE")) {
		return Fail, "the agent could not write its workspace either: " + firstLine(p.stdout)
	}
	return Pass, "outside and $HOME refused, the workspace written"
}

func (p probed) workspaceRow() (Outcome, string) {
	if why := p.failed(); why != "" {
		return Fail, why
	}
	switch {
	case p.hook || bytes.Contains(p.stdout, []byte("WROTE-HOOK")):
		return Fail, "the agent wrote .git/hooks/pre-commit"
	case bytes.Contains(p.all(), []byte(p.secret)):
		return Fail, "the agent read the workspace's .env"
	}
	return Pass, ".git/hooks/pre-commit read-only, .env shows no secret"
}

func (p probed) networkRow() (Outcome, string) {
	if why := p.failed(); why != "" {
		return Fail, why
	}
	switch {
	case bytes.Contains(p.stdout, []byte("NO-BASH")):
		return Unavailable, "no bash inside the sandbox to probe the network with"
	case p.accepted > 0 || bytes.Contains(p.stdout, []byte("DIRECT-CONNECTED")):
		return Fail, "the agent connected to a listener on the host's 127.0.0.1"
	case p.proxy.conns.Load() == 0 || !bytes.Contains(p.stdout, []byte(refused)):
		return Fail, "the run's proxy was not reached at " + agentbox.ProxyAddr + ": " + firstLine(p.stdout)
	}
	return Pass, "direct connect to the host refused, the proxy at " + agentbox.ProxyAddr + " reached"
}

// ownServerRow: a server the agent starts (a dev server) answers it, and
// the network cannot reach it.
func (p probed) ownServerRow() (Outcome, string) {
	if why := p.failed(); why != "" {
		return Fail, why
	}
	if bytes.Contains(p.stdout, []byte("NO-BASH")) || bytes.Contains(p.stdout, []byte("NO-PYTHON")) {
		return Unavailable, "no python3 inside the sandbox to start a server with"
	}
	return ownServerRow(p.stdout)
}

func (p probed) serverRow() (Outcome, string) {
	for _, row := range []func() (Outcome, string){p.canaryRow, p.writeRow, p.workspaceRow, p.networkRow} {
		if out, why := row(); out != Pass {
			return out, "from the server: " + why
		}
	}
	return Pass, "the detached server's canary, writes, .env and network all refused; its proxy reached"
}

// checkSettings changes, replaces and removes a settings file shown
// read-only over the agent's writable state directory. On Landlock the
// settings are guarded instead: the first change stops the run, and the
// file is put back.
func (c *confinedEnv) checkSettings(ctx context.Context) (Outcome, string) {
	script := `echo state > "$(dirname "$1")/state-$2" && echo WROTE-STATE
echo pwned > "$1" 2>&1; echo pwned >> "$1" 2>&1; rm -f "$1" 2>&1; mv "$1" "$1.old" 2>&1; echo DONE`
	tag := randHex(4)
	r := c.run(ctx, []string{"/bin/sh", "-c", script, "sh", c.settings, tag}, nil, nil)
	b, err := os.ReadFile(c.settings)
	switch {
	case r.err != nil:
		return Fail, fmt.Sprintf("run failed: %v", r.err)
	case err != nil || string(b) != settingsBody:
		return Fail, "the agent changed its settings file"
	case !bytes.Contains(r.stdout, []byte("WROTE-STATE")):
		return Fail, "the agent could not write its state directory either: " + firstLine(append(r.stderr, r.stdout...))
	case len(r.violations) > 0:
		return Pass, "its first change stopped the run and was put back (" + r.violations[0].Detail + "); the state directory beside it written"
	case !bytes.Contains(r.stdout, []byte("DONE")):
		return Fail, "the probe did not finish: " + firstLine(append(r.stderr, r.stdout...))
	}
	return Pass, "write, append, rm, mv refused; the state directory beside it written"
}

// checkKill starts a run whose agent daemonises a sleeper (setsid, in
// the background, the agent's own shell waiting), kills the run as the
// kill switch and a dead `gatehouse run` do, and looks for the sleeper.
func (c *confinedEnv) checkKill(ctx context.Context) (Outcome, string) {
	v, _ := rand.Int(rand.Reader, big.NewInt(900000))
	dur := strconv.FormatInt(100000+v.Int64(), 10)
	isSleeper := func(pid int) bool {
		a := proctree.Cmdline(pid)
		return len(a) == 2 && strings.HasSuffix(a[0], "sleep") && a[1] == dur
	}
	var seen bool
	r := c.run(ctx, []string{"/bin/sh", "-c", `setsid sh -c 'sleep "$0" & :' "$0" < /dev/null > /dev/null 2>&1 & sleep 600`, dur}, nil, func(b *agentbox.Box) {
		seen = waitSeen(ctx, isSleeper, 20*time.Second)
		b.Kill()
	})
	left := waitGone(isSleeper, 10*time.Second)
	if left > 0 {
		killMatching(isSleeper, syscall.SIGKILL)
	}
	switch {
	case r.err != nil:
		return Fail, fmt.Sprintf("run failed: %v", r.err)
	case !seen:
		return Fail, "the daemonised sleeper was never seen running: " + firstLine(r.stderr)
	case left > 0:
		return Fail, fmt.Sprintf("%d daemonised sleepers outlived the run", left)
	}
	return Pass, fmt.Sprintf("the run was killed (exit %d) and its daemonised sleeper is gone", r.code)
}
