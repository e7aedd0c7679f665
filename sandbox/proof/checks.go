package proof

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/oneline"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

func checkHomeCanary(ctx context.Context, e *env) (Outcome, string) {
	if e.home == "" {
		return Unavailable, "no home directory to plant the canary in"
	}
	secret := "gatehouse-canary-" + randHex(16)
	path := filepath.Join(e.home, ".gatehouse-doctor-canary-"+randHex(4))
	if err := os.WriteFile(path, []byte(secret), 0o600); err != nil {
		return Unavailable, fmt.Sprintf("cannot plant the canary in %s: %v", e.home, err)
	}
	defer os.Remove(path)
	r, err := e.run(ctx, []string{"sh", "-c", `cat "$1"; cat "$HOME/$(basename "$1")"`, "sh", path}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if bytes.Contains(r.Stdout, []byte(secret)) || bytes.Contains(r.Stderr, []byte(secret)) {
		return Fail, "the sandbox read a file in the real $HOME"
	}
	return Pass, "cat of " + path + " refused: " + firstLine(r.Stderr)
}

func checkWriteOutside(ctx context.Context, e *env) (Outcome, string) {
	targets := []string{filepath.Join(e.outside, "pwned"), filepath.Join(e.home, ".gatehouse-doctor-pwned-"+randHex(4))}
	defer os.Remove(targets[1])
	r, err := e.run(ctx, []string{"sh", "-c", `echo pwned > "$1"; echo pwned > "$2"; exit 0`, "sh", targets[0], targets[1]}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	for _, t := range targets {
		if _, err := os.Lstat(t); err == nil {
			return Fail, "the sandbox created " + t
		}
	}
	return Pass, "writes refused: " + firstLine(r.Stderr)
}

// checkHostRoot reads a file outside the workspace through the host's
// root, which bwrap binds for the helper to clone the layout from and
// the helper detaches before the call, and looks for that root in the
// sandbox's listing and mount table.
func checkHostRoot(ctx context.Context, e *env) (Outcome, string) {
	secret := "gatehouse-host-root-" + randHex(16)
	path := filepath.Join(e.outside, "host-root-canary")
	if err := os.WriteFile(path, []byte(secret), 0o600); err != nil {
		return Unavailable, fmt.Sprintf("cannot plant the canary in %s: %v", e.outside, err)
	}
	defer os.Remove(path)
	r, err := e.run(ctx, []string{"sh", "-c", `cat "$1$2"; ls -a /; cat /proc/self/mountinfo; exit 0`, "sh", initproc.HostRoot, path}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	out := append(append([]byte{}, r.Stdout...), r.Stderr...)
	switch {
	case bytes.Contains(out, []byte(secret)):
		return Fail, "the sandbox read a file outside the workspace through " + initproc.HostRoot
	case bytes.Contains(r.Stdout, []byte(strings.TrimPrefix(initproc.HostRoot, "/"))):
		return Fail, initproc.HostRoot + " is listed or mounted in the sandbox"
	}
	return Pass, "not listed, not mounted; reading through it: " + firstLine(r.Stderr)
}

func checkGitHooks(ctx context.Context, e *env) (Outcome, string) {
	hook := filepath.Join(e.ws, ".git", "hooks", "pre-commit")
	cfg := filepath.Join(e.ws, ".git", "config")
	// Undoing the read-only mounts first must fail too.
	r, err := e.run(ctx, []string{"sh", "-c", unmountScript + `echo evil > .git/hooks/pre-commit; echo evil >> .git/config; mv .git/hooks .git/hooks.old; mv .git/config .git/config.old; exit 0`}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if _, err := os.Lstat(hook); err == nil {
		return Fail, "the sandbox wrote .git/hooks/pre-commit"
	}
	if b, err := os.ReadFile(cfg); err != nil || string(b) != gitConfig {
		return Fail, "the sandbox changed or moved .git/config"
	}
	if st, err := os.Stat(filepath.Join(e.ws, ".git", "hooks")); err != nil || !st.IsDir() {
		return Fail, "the sandbox moved .git/hooks away"
	}
	if r.KillReason == sandbox.KillProtected && len(r.Violations) > 0 {
		// Landlock cannot refuse writes below .git; the daemon undid them.
		return Pass, "stopped and undone: " + r.Violations[0].Detail
	}
	return Pass, "writes refused: " + firstLine(r.Stderr)
}

// unmountScript tries to lift the protections with the umount syscall
// (busybox calls it whatever the uid; util-linux only as root).
const unmountScript = `for p in .git/hooks .git/config .mcp.json .claude .vscode .bashrc .husky .git/modules .git/modules/x .git/modules/x/hooks .git/modules/x/config .pre-commit-config.yaml .envrc .env sub sub/.env.local; do busybox umount -l "$p"; umount -l "$p"; done 2>/dev/null; `

func checkUncreatable(ctx context.Context, e *env) (Outcome, string) {
	r, err := e.run(ctx, []string{"sh", "-c", unmountScript + `echo '{}' > .mcp.json; mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json; mkdir -p .vscode && echo x > .vscode/tasks.json; echo x > .bashrc; exit 0`}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	// A backend may keep an empty read-only placeholder directory there
	// while a session is open; anything else means the write got through.
	for _, n := range []string{".mcp.json", ".claude", ".vscode", ".bashrc"} {
		p := filepath.Join(e.ws, n)
		st, err := os.Lstat(p)
		if err != nil {
			continue
		}
		ents, _ := os.ReadDir(p)
		if !st.IsDir() || len(ents) > 0 {
			return Fail, "the sandbox created " + n
		}
	}
	return Pass, "creation refused: " + firstLine(r.Stderr)
}

// probeScript connects to 127.0.0.1:$1 with whatever tool the sandbox
// has; exit 97 means it has none.
const probeScript = `if command -v bash >/dev/null 2>&1; then bash -c "echo hi > /dev/tcp/127.0.0.1/$1"; 
elif command -v nc >/dev/null 2>&1; then echo hi | nc -w 2 127.0.0.1 "$1";
else exit 97; fi`

func checkNetwork(ctx context.Context, e *env) (Outcome, string) {
	return tcpRow(ctx, e, sandbox.NetNone, nil)
}

// tcpRow connects to a listener on the host's 127.0.0.1 and fails if it
// accepted anything.
func tcpRow(ctx context.Context, e *env, mode sandbox.NetworkMode, proxy sandbox.Proxy) (Outcome, string) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return Unavailable, fmt.Sprintf("cannot listen on 127.0.0.1: %v", err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go countAccepts(ln, &accepted)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	r, err := e.run(ctx, []string{"sh", "-c", probeScript, "sh", port}, func(s *sandbox.Spec) {
		s.Network = sandbox.Network{Mode: mode, Proxy: proxy}
	})
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if r.ExitCode == 97 {
		return Unavailable, "no bash or nc inside the sandbox to probe with"
	}
	time.Sleep(100 * time.Millisecond) // let a connection that did get through be accepted
	if accepted.Load() > 0 {
		return Fail, "a sandboxed process connected to 127.0.0.1:" + port
	}
	return Pass, "connect refused: " + firstLine(r.Stderr)
}

func checkEnvSecrets(ctx context.Context, e *env) (Outcome, string) {
	const key = "GATEHOUSE_DOCTOR_SECRET"
	secret := "gatehouse-env-secret-" + randHex(16)
	old, had := os.LookupEnv(key)
	_ = os.Setenv(key, secret)
	defer func() {
		if had {
			_ = os.Setenv(key, old)
		} else {
			_ = os.Unsetenv(key)
		}
	}()
	r, err := e.run(ctx, []string{"sh", "-c", `env; cat /proc/$1/environ; cat /proc/1/environ; exit 0`, "sh", strconv.Itoa(os.Getpid())}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if bytes.Contains(r.Stdout, []byte(secret)) || bytes.Contains(r.Stderr, []byte(secret)) {
		return Fail, "a host environment secret was visible (env or /proc/PID/environ)"
	}
	if !bytes.Contains(r.Stdout, []byte("PATH=")) {
		return Fail, "env printed nothing; the check did not run: " + firstLine(r.Stderr)
	}
	return Pass, "only the allowlist was visible"
}

// checkForkBomb runs the bomb, and again, after a pause, if it could not
// even start: a first fork refused on a machine busy with other work
// (whose processes and threads may all count against one task limit,
// such as a container's) shows nothing about containment either way,
// while a bomb that got out shows as a runaway in whichever attempt.
func checkForkBomb(ctx context.Context, e *env) (Outcome, string) {
	if out, detail := limitBites(ctx, e); out != Pass {
		return out, detail
	}
	out, detail := forkBombOnce(ctx, e)
	for try := 1; try < bombTries && out == Fail && strings.HasPrefix(detail, bombNeverStarted); try++ {
		select {
		case <-ctx.Done():
			return out, detail
		case <-time.After(time.Duration(try) * time.Second):
		}
		out, detail = forkBombOnce(ctx, e)
	}
	if out == Pass {
		detail += fmt.Sprintf("; %d sleepers could not all start", 2*ForkBombLimit)
	}
	return out, detail
}

// limitBites starts twice as many sleepers as the run may have: some
// forks must fail. A bomb's peak, sampled from outside, can stay below
// the limit on a slow sampler whether or not the limit holds.
func limitBites(ctx context.Context, e *env) (Outcome, string) {
	n := 2 * ForkBombLimit
	r, err := e.run(ctx, []string{"sh", "-c", fmt.Sprintf(`for i in $(seq %d); do sleep 2 & done; wait`, n)}, func(s *sandbox.Spec) {
		s.Limits.Wall = 20 * time.Second
		s.Limits.Processes = ForkBombLimit
	})
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case !strings.Contains(strings.ToLower(string(r.Stderr)), "fork"):
		return Fail, fmt.Sprintf("%d sleepers started in a run allowed %d processes (no fork failed)", n, ForkBombLimit)
	}
	return Pass, ""
}

const bombNeverStarted = "the bomb never started: "

// bombTries is how many times a bomb that could not start is tried.
const bombTries = 3

func forkBombOnce(ctx context.Context, e *env) (Outcome, string) {
	marker := "gatehouse-bomb-" + randHex(6)
	envMark := "GATEHOUSE_BOMB=" + marker
	isBomb := func(pid int) bool {
		if proctree.EnvironHas(pid, envMark) {
			return true
		}
		for _, a := range proctree.Cmdline(pid) {
			if a == marker {
				return true
			}
		}
		return false
	}
	var (
		peak    int
		runaway atomic.Bool
	)
	stop := sample(isBomb, func(n int) {
		peak = max(peak, n)
		if n > 20*ForkBombLimit {
			// The limit is not holding; stop the bomb before the
			// machine suffers, and fail the check.
			runaway.Store(true)
			killMatching(isBomb, syscall.SIGKILL)
		}
	})
	start := time.Now()
	// The sleep is forked before the bomb fills the limit, so the run
	// lives its 3 seconds and the sampler sees it even on a busy machine.
	r, err := e.run(ctx, []string{"sh", "-c", `sleep 3 & s=$!; bomb() { bomb | bomb & }; bomb; wait $s; exit 0`, marker}, func(s *sandbox.Spec) {
		s.Limits.Wall = 4 * time.Second
		s.Limits.Grace = time.Second
		s.Limits.Processes = ForkBombLimit
		s.Env = append(s.Env, envMark)
	})
	took := time.Since(start)
	stop()
	left := waitGone(isBomb, 10*time.Second)
	if left > 0 {
		killMatching(isBomb, syscall.SIGKILL)
	}
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case runaway.Load():
		return Fail, fmt.Sprintf("the bomb passed %d processes; the process limit did not hold", 20*ForkBombLimit)
	case left > 0:
		return Fail, fmt.Sprintf("%d bomb processes outlived the run", left)
	case peak > 2*ForkBombLimit:
		return Fail, fmt.Sprintf("peak of %d processes, limit %d", peak, ForkBombLimit)
	case peak == 0:
		return Fail, bombNeverStarted + firstLine(r.Stderr)
	}
	return Pass, fmt.Sprintf("peak %d processes (limit %d), all gone %.1fs after start", peak, ForkBombLimit, took.Seconds())
}

func checkSleeper(ctx context.Context, e *env) (Outcome, string) {
	n := func() string {
		v, _ := rand.Int(rand.Reader, big.NewInt(900000))
		return strconv.FormatInt(100000+v.Int64(), 10)
	}
	durs := []string{n(), n(), n()}
	isSleeper := func(pid int) bool {
		a := proctree.Cmdline(pid)
		if len(a) != 2 || !strings.HasSuffix(a[0], "sleep") {
			return false
		}
		for _, d := range durs {
			if a[1] == d {
				return true
			}
		}
		return false
	}
	var seen int
	stop := sample(isSleeper, func(n int) { seen = max(seen, n) })
	const wall, grace = 2 * time.Second, time.Second
	start := time.Now()
	r, err := e.run(ctx, []string{"sh", "-c", `sleep $1 & setsid sleep $2 & sleep $3; exit 0`, "sh", durs[0], durs[1], durs[2]}, func(s *sandbox.Spec) {
		s.Limits.Wall = wall
		s.Limits.Grace = grace
	})
	took := time.Since(start)
	stop()
	left := waitGone(isSleeper, 10*time.Second)
	if left > 0 {
		killMatching(isSleeper, syscall.SIGKILL)
	}
	switch {
	case err != nil:
		return Fail, fmt.Sprintf("run failed: %v", err)
	case seen < 3:
		return Fail, fmt.Sprintf("only %d of 3 sleepers were seen running: %s", seen, firstLine(r.Stderr))
	case !r.Killed || r.KillReason != sandbox.KillTimeout:
		return Fail, fmt.Sprintf("run was not killed for timeout (killed=%v reason=%q)", r.Killed, r.KillReason)
	case took > wall+grace+10*time.Second:
		return Fail, fmt.Sprintf("kill took %.1fs for a %.0fs limit", took.Seconds(), wall.Seconds())
	case left > 0:
		return Fail, fmt.Sprintf("%d sleepers outlived the kill (setsid grandchild escaped)", left)
	}
	return Pass, fmt.Sprintf("killed after %.1fs (limit %.0fs), 3 of 3 sleepers gone", took.Seconds(), wall.Seconds())
}

// killMatching counts live processes matching and, if sig is non-zero,
// signals them.
// sample counts the processes that match every 20 ms and hands the count
// to each, until the returned stop is called.
func sample(match func(int) bool, each func(n int)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			each(killMatching(match, 0))
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

func killMatching(match func(int) bool, sig syscall.Signal) int {
	procs, err := proctree.List()
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range procs {
		if p.Zombie || p.PID == os.Getpid() || !match(p.PID) {
			continue
		}
		n++
		if sig != 0 {
			_ = syscall.Kill(p.PID, sig)
		}
	}
	return n
}

// waitGone waits for matching processes to disappear and returns how many
// remain. Reaping by their parent can lag a little on a busy machine.
func waitGone(match func(int) bool, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		n := killMatching(match, 0)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func firstLine(b []byte) string { return oneline.Of(string(b), 120, "(no message)") }
