// Package container confines runs in a docker or podman container: one
// long-lived container per session, started at Open and used through
// `exec` for every run. The workspace is bind-mounted at the same path;
// the root is read-only, there is no network, only the env allowlist
// reaches the process, and the container is removed at Close.
//
// Limits: memory, processes and open files apply to the whole container
// (from SessionSpec.Limits); wall time, output caps and the kill apply
// per run. A kill stops every process in the container but its init,
// so concurrent runs in one session die together.
package container

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// Name is the backend's config name.
const Name = "container"

// Options configure the backend. The image needs sh and kill (busybox
// is enough): each run is wrapped so its leftovers can be killed.
type Options struct {
	// CLI is "docker" or "podman" (a name on PATH or a path).
	CLI string
	// Image must contain the tools the agent runs, plus sleep and kill.
	Image string
	// GlobalArgs go before every subcommand, e.g. podman's
	// --runtime runc --cgroup-manager=cgroupfs.
	GlobalArgs []string
	// RunArgs are extra flags for `run`, e.g. --ulimit nofile=1024:1024,
	// --userns=keep-id for rootless podman.
	RunArgs []string
	// KeepAlive is the container's main process; default DefaultKeepAlive.
	KeepAlive []string
	// Helper is a statically linked gatehouse-sandbox-init, mounted into
	// each container to take calls without a CLI exec each time (see
	// warm.go). Default: the one next to gatehouse, if static; without
	// one every call goes through the CLI's exec.
	Helper string
	// Owner labels every container this backend starts (the daemon passes
	// a hash of its data dir), so Sweep can remove the ones a crashed
	// daemon left behind without touching another daemon's.
	Owner string
	// Home is the person's home, whose git config (without its
	// credentials) each container's git reads as its global config, so a
	// commit there has the person's name; "" for none.
	Home string
	// Shown is the daemon's directory for the files a sandbox shows in
	// place of the person's (sandbox.GlobalGitConfig writes there).
	Shown  string
	Logger *slog.Logger
}

// OwnerFor is the Owner of the daemon whose data dir is dataDir: a hash,
// the same at every start, that names no path in a label.
func OwnerFor(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return hex.EncodeToString(sum[:8])
}

// DefaultKeepAlive is the container's init: it ignores SIGCHLD so the
// kernel reaps the orphans a kill leaves behind (no zombies filling the
// pids limit), and exits on SIGTERM.
var DefaultKeepAlive = []string{"sh", "-c", `trap "" CHLD; trap "exit 0" TERM; while :; do sleep 3600; done`}

// Backend runs commands in containers.
type Backend struct {
	opts Options
	cli  string
	// nestRefused: a run's namespaces were refused once (nest.go).
	nestRefused atomic.Bool
}

// New checks the CLI is installed and answers. The error wraps
// sandbox.ErrUnavailable.
func New(ctx context.Context, o Options) (*Backend, error) {
	if o.CLI == "" {
		o.CLI = "podman"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if len(o.KeepAlive) == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	cli, err := exec.LookPath(o.CLI)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not installed (install it, or choose another sandbox backend)", sandbox.ErrUnavailable, o.CLI)
	}
	if o.Image == "" {
		return nil, fmt.Errorf("%w: no container image configured; set one in the sandbox config", sandbox.ErrUnavailable)
	}
	if o.Helper == "" {
		if h, err := launch.DefaultHelper(); err == nil {
			o.Helper = h
		}
	}
	if o.Helper != "" && !staticBinary(o.Helper) {
		o.Logger.Info("container sandbox: helper is not a static binary; every call goes through the CLI's exec", "helper", o.Helper)
		o.Helper = ""
	}
	b := &Backend{opts: o, cli: cli}
	if out, err := b.command(ctx, "version").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: %s does not answer (%s)", sandbox.ErrUnavailable, o.CLI, lastLine(out, err))
	}
	return b, nil
}

// Name implements sandbox.Backend.
func (b *Backend) Name() string { return Name }

// CanStage implements sandbox.Stager: with podman and a helper to take its
// calls, a session with a stage root runs each call in namespaces of its
// own inside the container, staged or read-only (nest.go).
func (b *Backend) CanStage() bool {
	return b.opts.Helper != "" && b.isPodman() && !b.nestRefused.Load()
}

func (b *Backend) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.cli, append(append([]string{}, b.opts.GlobalArgs...), args...)...)
	cmd.Env = os.Environ() // the CLI itself needs the user's config, not the sandbox
	return cmd
}

func (b *Backend) isPodman() bool { return strings.Contains(filepath.Base(b.cli), "podman") }

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_.-]`) })

// Open implements sandbox.Backend: it starts the session's container.
func (b *Backend) Open(ctx context.Context, s sandbox.SessionSpec) (sandbox.Session, error) {
	ss, err := sandbox.PrepareSession(s, sandbox.PrepareOptions{})
	if err != nil {
		return nil, err
	}
	sess := &session{b: b, ss: ss}
	if sess.expose, err = protect.ParseExposure(ss.ExposeSecrets); err != nil {
		return nil, err
	}
	if err := sess.start(ctx); err != nil {
		return nil, err
	}
	sess.prepareNext()
	return sess, nil
}

// start starts the session's container with the mounts its workspaces
// need now.
func (s *session) start(ctx context.Context) error {
	b, ss := s.b, s.ss
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := "gatehouse-" + unsafeName().ReplaceAllString(ss.ID, "_") + "-" + hex.EncodeToString(rnd[:])
	var runDir string
	if b.opts.Helper != "" {
		d, err := os.MkdirTemp("", "gatehouse-ctr-")
		if err == nil {
			runDir = d
		}
	}
	nest := s.wantsNest(runDir)
	// With a helper, every call goes through one, and a run that writes
	// the workspace itself is given the missing names to refuse
	// (guardMissing): the container needs no placeholders.
	cov, err := workspaceCover(ss.Workspaces, s.expose, runDir == "")
	if err != nil {
		if runDir != "" {
			os.RemoveAll(runDir)
		}
		return err
	}
	mounts := cov.mounts
	gitConfig, extras := b.gitConfig()
	if gitConfig != "" {
		mounts = append(slices.Clip(mounts), bindMount(gitConfig, gitConfigMount, "readonly"))
		for _, p := range slices.Sorted(maps.Keys(extras)) {
			mounts = append(mounts, bindMount(extras[p], p, "readonly"))
		}
	}
	args := b.runArgs(name, ss, mounts, runDir, nest)
	out, err := b.command(ctx, args...).CombinedOutput()
	if err != nil {
		cov.release()
		_ = b.command(context.WithoutCancel(ctx), b.rmArgs(name)...).Run()
		if runDir != "" {
			os.RemoveAll(runDir)
		}
		return fmt.Errorf("start session container: %s: %w", lastLine(out, err), err)
	}
	s.name, s.cover, s.runDir, s.nested, s.gitConfig = name, cov, runDir, nest, gitConfig != ""
	return nil
}

// gitConfig is the person's global git config without its credentials,
// written for the container to show, and the files it includes or names
// from the home, each with what to show at its path; "" when there is
// none to show.
func (b *Backend) gitConfig() (string, map[string]string) {
	if b.opts.Home == "" || b.opts.Shown == "" {
		return "", nil
	}
	p, extras, err := sandbox.GlobalGitConfig(b.opts.Home, b.opts.Shown)
	if err != nil {
		// Commands still run; git there has no name of the person's.
		b.opts.Logger.Warn("container sandbox: your git config is not shown to commands", "err", err)
		return "", nil
	}
	return p, extras
}

func (b *Backend) runArgs(name string, ss sandbox.SessionSpec, mounts []string, runDir string, nest bool) []string {
	a := []string{"run", "-d", "--name", name, "--label", "gatehouse.session=" + ss.ID, "--label", "gatehouse.owner=" + b.opts.Owner,
		"--network", "none", "--read-only", "--cap-drop", "ALL",
		"--security-opt", "no-new-privileges", "--workdir", ss.Workspaces[0]}
	if nest {
		// Only for the helper to map root into each run's own user
		// namespace (Linux 5.12 asks for it); the helper drops it, with
		// every other capability, before exec.
		a = append(a, "--cap-add", "SETFCAP")
		a = append(a, nestArgs(ss)...)
	}
	l := ss.Limits
	if l.Processes > 0 {
		a = append(a, "--pids-limit", strconv.Itoa(l.Processes))
	}
	if l.MemoryBytes > 0 {
		a = append(a, "--memory", strconv.FormatInt(l.MemoryBytes, 10))
	}
	if l.FileSizeBytes > 0 {
		a = append(a, "--ulimit", "fsize="+strconv.FormatInt(l.FileSizeBytes, 10))
	}
	for _, w := range ss.Workspaces {
		a = append(a, "--mount", bindMount(w, w))
	}
	a = append(a, sessionMounts(ss)...)
	for _, m := range mounts {
		a = append(a, "--mount", m)
	}
	for _, h := range ss.Hidden {
		st, err := os.Lstat(h)
		if err != nil {
			continue
		}
		inside := false
		for _, w := range ss.Workspaces {
			inside = inside || sandbox.Within(h, w)
		}
		if !inside {
			continue // never mounted, so never visible
		}
		if st.IsDir() {
			a = append(a, "--mount", emptyDirMount(h))
		} else {
			a = append(a, "--mount", bindMount(os.DevNull, h, "readonly"))
		}
	}
	if runDir != "" {
		a = append(a, "--mount", bindMount(b.opts.Helper, helperMount, "readonly"),
			"--mount", bindMount(runDir, runDirMount))
	}
	a = append(a, b.opts.RunArgs...)
	if l.Processes > 0 {
		// Rootless podman on cgroup v1 ignores --pids-limit without a word
		// (a fork bomb reached 277 of 64); RLIMIT_NPROC holds there. Rootful
		// containers run as real root, which it does not bind: the pids
		// cgroup does. After RunArgs, so a looser nproc there loses.
		n := strconv.Itoa(l.Processes)
		a = append(a, "--ulimit", "nproc="+n+":"+n)
	}
	a = append(a, b.opts.Image)
	if nest {
		// The helper as init: the runs cannot look into it through /proc
		// (its root is the container's view of the workspace, outside
		// their overlays), as they could into a shell.
		return append(a, helperMount, initproc.Entry, `{"idle":true}`)
	}
	return append(a, b.opts.KeepAlive...)
}

func (b *Backend) rmArgs(name string) []string {
	if b.isPodman() {
		return []string{"rm", "-f", "-t", "0", name}
	}
	return []string{"rm", "-f", name}
}

// runWrapper runs the target, then kills whatever it left behind (kill
// -1 spares only init and the caller), since an exec has no PID
// namespace of its own. Runs in one session are serialized for this.
const runWrapper = `command -v -- "$1" >/dev/null 2>&1 || { echo "gatehouse: executable file $1 not found" >&2; exit 127; }
"$@"; rc=$?; kill -9 -1 2>/dev/null; exit $rc`

type session struct {
	b    *Backend
	run  sync.Mutex // one run at a time: a run's cleanup kills the container's processes
	ss   sandbox.SessionSpec
	name string
	// cover is what the container was started to hide and protect;
	// expose, the secrets the session lets commands read.
	cover  *cover
	expose protect.Exposure
	// runDir is shared with the container for the ready helper's socket;
	// empty when calls go through the CLI's exec only.
	runDir string
	// gitConfig: the person's git config is at gitConfigMount.
	gitConfig bool
	warm      warm
	// nested: this container's runs make their own mounts (nest.go);
	// unnested: the runtime refused them, and the session stopped trying.
	nested, unnested bool

	mu     sync.Mutex
	closed bool
}

func (s *session) Run(ctx context.Context, spec sandbox.Spec) (sandbox.Result, error) {
	res := sandbox.Result{Backend: Name}
	s.run.Lock()
	defer s.run.Unlock()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return res, sandbox.ErrClosed
	}
	p, err := sandbox.Prepare(s.ss, spec, sandbox.PrepareOptions{SkipLookup: true})
	if err != nil {
		return res, err
	}
	if p.Network.Mode == sandbox.NetHost {
		return res, &sandbox.SpecError{Field: "network", Value: string(p.Network.Mode), Err: fmt.Errorf("%w: the container backend has no host network", sandbox.ErrBadSpec)}
	}
	if len(spec.ReadOnly) > 0 || len(spec.ReadWrite) > 0 {
		return res, &sandbox.SpecError{Field: "read_write", Value: "", Err: fmt.Errorf("%w: the container backend mounts only the session's workspaces", sandbox.ErrBadSpec)}
	}
	if err := s.coverCurrent(ctx, spec); err != nil {
		return res, err
	}
	defer s.prepareNext()
	if p.Stage != nil && !s.nested {
		return res, cannotStage(p)
	}
	res, err = s.runOnce(ctx, p, spec)
	if !errors.Is(err, errNestFailed) {
		return res, err
	}
	s.noNesting()
	if err := s.fallBack(ctx, err.Error()); err != nil {
		return res, err
	}
	if p.Stage != nil {
		return res, cannotStage(p) // the pipeline runs it again, unstaged
	}
	return s.runOnce(ctx, p, spec)
}

// runOnce runs p through a ready helper, or the CLI's exec when there is
// none and the run needs no namespaces of its own.
func (s *session) runOnce(ctx context.Context, p *sandbox.Prepared, spec sandbox.Spec) (sandbox.Result, error) {
	env := sandbox.RunEnv(p.Env, "/tmp", "/tmp")
	if s.gitConfig {
		env = sandbox.WithDefaultEnv(env, "GIT_CONFIG_GLOBAL", gitConfigMount)
	}
	if r := s.takeReady(ctx); r != nil {
		res, err := s.runReady(ctx, r, p, env)
		if !errors.Is(err, sandbox.ErrNotReady) {
			return res, err
		}
	}
	if err := ctx.Err(); err != nil {
		return sandbox.Result{Backend: Name}, err // and never beside a helper being started (takeReady)
	}
	if s.runDir != "" {
		// Only a helper makes the run's namespaces and refuses the
		// missing protected names: the CLI's exec would run it in the
		// container's own namespaces, where no placeholder holds them.
		r, err := s.startExec(ctx)
		if err != nil {
			return sandbox.Result{Backend: Name}, fmt.Errorf("start the container's helper: %w", err)
		}
		return s.runReady(ctx, r, p, env)
	}
	if p.Network.Mode == sandbox.NetProxy {
		// The proxy's socket comes from the ready helper; through the CLI's
		// exec the run keeps the container's own empty network.
		s.b.opts.Logger.Warn("container sandbox: no ready helper, so this run has no proxy and no network", "container", s.name)
	}
	return s.runExec(ctx, p, env, spec)
}

// runExec runs p through the CLI's exec.
func (s *session) runExec(ctx context.Context, p *sandbox.Prepared, env []string, spec sandbox.Spec) (sandbox.Result, error) {
	res := sandbox.Result{Backend: Name}
	args := []string{"exec", "-i", "--workdir", p.Dir}
	// Values go through a 0600 file, not argv, which every user can read.
	envFile, err := os.CreateTemp("", "gatehouse-env-")
	if err != nil {
		return res, fmt.Errorf("write run environment: %w", err)
	}
	defer os.Remove(envFile.Name())
	for _, e := range env {
		if strings.ContainsAny(e, "\n\r") {
			args = append(args, "--env", e)
			continue
		}
		fmt.Fprintln(envFile, e)
	}
	if err := envFile.Close(); err != nil {
		return res, fmt.Errorf("write run environment: %w", err)
	}
	args = append(args, "--env-file", envFile.Name(), s.name, "sh", "-c", runWrapper, "sh")
	args = append(args, p.Argv...)

	limits := p.Limits
	stdout := sandbox.NewCapture(limits.OutputCap(), spec.Stdout)
	stderr := sandbox.NewCapture(limits.OutputCap(), spec.Stderr)
	cmd := s.b.command(context.WithoutCancel(ctx), args...)
	cmd.Stdin = spec.Stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("start %s exec: %w", s.b.opts.CLI, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	wall, stopWall := limits.WallTimer()
	defer stopWall()
	select {
	case <-done:
	case <-ctx.Done():
		res.Killed, res.KillReason = true, sandbox.KillCanceled
		s.terminate(ctx, cmd, limits.GraceOrDefault(), done)
	case <-wall:
		res.Killed, res.KillReason = true, sandbox.KillTimeout
		s.terminate(ctx, cmd, limits.GraceOrDefault(), done)
	}
	res.Duration = time.Since(start)
	res.Stdout, res.StdoutTruncated, res.StdoutBytes = stdout.Bytes(), stdout.Truncated(), stdout.Total()
	res.Stderr, res.StderrTruncated, res.StderrBytes = stderr.Bytes(), stderr.Truncated(), stderr.Total()
	res.ExitCode = -1
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
	}
	if res.ExitCode == 127 && !res.Killed && notFound(res.Stderr) {
		return res, &sandbox.SpecError{Field: "argv[0]", Value: p.Argv[0], Err: sandbox.ErrNotFound}
	}
	return res, nil
}

// notFound recognises the runtime's "no such program" message, which
// means the target never started.
func notFound(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("executable file")) && bytes.Contains(stderr, []byte("not found"))
}

// terminate signals every process in the container except its init
// (kill -1 from inside a PID namespace), waits the grace period, then
// SIGKILLs them. If the container cannot run kill, it is removed and the
// session closed: a run must never outlive its kill.
func (s *session) terminate(ctx context.Context, cmd *exec.Cmd, grace time.Duration, done <-chan error) {
	bg := context.WithoutCancel(ctx)
	kill := func(sig string) error { return s.killAll(bg, sig) }
	termErr := kill("15")
	t := time.NewTimer(grace)
	defer t.Stop()
	exited := false
	select {
	case <-done:
		exited = true
	case <-t.C:
	}
	if err := kill("9"); err != nil || termErr != nil {
		s.b.opts.Logger.Warn("sandbox: cannot kill inside the container; removing it", "container", s.name, "err", errors.Join(termErr, err))
		_ = s.close(bg)
	}
	if !exited {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// killAll signals every process in the container but its init.
func (s *session) killAll(ctx context.Context, sig string) error {
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := s.b.command(c, "exec", s.name, "kill", "-"+sig, "-1").CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("No such process")) {
		return fmt.Errorf("%s: %w", lastLine(out, err), err)
	}
	return nil
}

func (s *session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close removes the container. It waits for a run in progress.
func (s *session) Close(ctx context.Context) error {
	s.run.Lock()
	defer s.run.Unlock()
	return s.close(ctx)
}

func (s *session) close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	return s.stop(ctx)
}

// stop removes the container and what was made for it.
func (s *session) stop(ctx context.Context) error {
	defer s.cover.release()
	s.dropReady()
	if s.runDir != "" {
		defer os.RemoveAll(s.runDir)
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if out, err := s.b.command(c, s.b.rmArgs(s.name)...).CombinedOutput(); err != nil {
		return fmt.Errorf("remove session container %s: %s: %w", s.name, lastLine(out, err), err)
	}
	return nil
}

func lastLine(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" && err != nil {
		return err.Error()
	}
	return s
}

// Sweep removes the containers of this owner that are still present: a
// daemon that starts has no sessions yet, so every one of them is an orphan
// of a daemon that died without closing its sessions.
func (b *Backend) Sweep(ctx context.Context) (int, error) {
	if b.opts.Owner == "" {
		return 0, nil
	}
	out, err := b.command(ctx, "ps", "-a", "-q", "--filter", "label=gatehouse.owner="+b.opts.Owner).Output()
	if err != nil {
		return 0, fmt.Errorf("list leftover containers: %w", err)
	}
	n := 0
	for _, id := range strings.Fields(string(out)) {
		if err := b.command(ctx, b.rmArgs(id)...).Run(); err != nil {
			return n, fmt.Errorf("remove leftover container %s: %w", id, err)
		}
		n++
	}
	if n > 0 {
		b.opts.Logger.Warn("container sandbox: removed containers left by a previous daemon", "count", n)
	}
	return n, nil
}
