package container

import (
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"golang.org/x/sys/unix"
)

// An exec through the CLI costs hundreds of milliseconds (CLI start,
// conmon, runtime, and its exec-session bookkeeping at exit). So each
// session keeps one exec of the helper running in its container, idle
// until the next call: the daemon hands it the call over a unix socket
// in a directory shared with the container, together with the run's
// pipes, and reads the exit status from a pipe of its own.

// Where the helper and the shared directory appear in the container.
const (
	helperMount = "/.gatehouse-sandbox-init"
	runDirMount = "/.gatehouse-run"
	// gitConfigMount is where the person's git config is shown
	// (Options.Home): the container's home is a run's own /tmp.
	gitConfigMount = "/.gatehouse-gitconfig"
)

// staticBinary reports whether path is an executable that needs no
// dynamic loader, so it runs in any image.
func staticBinary(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

// readyExec is a helper waiting in the container for its call.
type readyExec struct {
	conn *net.UnixConn
	id   string // the CLI's exec session, if it printed one
}

// forget removes the finished exec session from podman's records, which
// otherwise keep one per call for the container's life; docker collects
// its own. It runs after the call, off its path.
func (s *session) forget(r *readyExec) {
	if r.id == "" || !s.b.isPodman() {
		return
	}
	go func() {
		c, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// The helper may still be exiting; podman refuses a running session.
		for i := 0; i < 20; i++ {
			if s.b.command(c, "container", "cleanup", "--exec", r.id, "--rm", s.name).Run() == nil || s.isClosed() {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
}

// warm holds the session's helper: at most one ready or being started.
type warm struct {
	mu       sync.Mutex
	ready    *readyExec
	starting chan struct{} // closed when the start in flight ends
}

// prepareNext starts the next call's helper in the background.
func (s *session) prepareNext() {
	if s.runDir == "" {
		return
	}
	s.warm.mu.Lock()
	if s.warm.ready != nil || s.warm.starting != nil || s.isClosed() {
		s.warm.mu.Unlock()
		return
	}
	done := make(chan struct{})
	s.warm.starting = done
	s.warm.mu.Unlock()
	go func() {
		r, err := s.startExec(context.Background())
		if err != nil {
			s.b.opts.Logger.Debug("container sandbox: helper not started ahead", "container", s.name, "err", err)
		}
		s.warm.mu.Lock()
		s.warm.ready, s.warm.starting = r, nil
		s.warm.mu.Unlock()
		close(done)
	}()
}

// takeReady returns the ready helper, waiting for one being started; nil
// means take the CLI's exec. It must wait rather than run a call beside a
// start: while the helper's socket exists, a process of that call could
// dial it first and be handed the next call. Calls are serialized and a
// call's processes are all killed when it ends, so no agent process runs
// while a socket exists.
func (s *session) takeReady(ctx context.Context) *readyExec {
	s.warm.mu.Lock()
	starting := s.warm.starting
	s.warm.mu.Unlock()
	if starting != nil {
		select {
		case <-starting:
		case <-ctx.Done():
			return nil
		}
	}
	s.warm.mu.Lock()
	defer s.warm.mu.Unlock()
	r := s.warm.ready
	s.warm.ready = nil
	return r
}

// dropReady closes the ready helper (it exits on EOF), waiting for one
// being started.
func (s *session) dropReady() {
	s.warm.mu.Lock()
	starting := s.warm.starting
	s.warm.mu.Unlock()
	if starting != nil {
		<-starting
	}
	s.warm.mu.Lock()
	r := s.warm.ready
	s.warm.ready = nil
	s.warm.mu.Unlock()
	if r != nil {
		r.conn.Close()
		s.forget(r)
	}
}

// startExec runs the helper in the container and waits for it to dial
// in. The socket has a fresh random name and takes one connection.
func (s *session) startExec(ctx context.Context) (*readyExec, error) {
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	name := hex.EncodeToString(rnd[:]) + ".sock"
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(s.runDir, name), Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen for the container's helper: %w", err)
	}
	defer ln.Close() // and unlink: nobody else can dial in later
	cfg, err := initproc.Config{Supervise: true, Connect: runDirMount + "/" + name, Grace: s.ss.Limits.GraceOrDefault()}.Encode()
	if err != nil {
		return nil, err
	}
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := s.b.command(c, "exec", "-d", s.name, helperMount, initproc.Entry, cfg)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("start helper in %s: %s: %w", s.name, lastLine([]byte(stderr.String()), err), err)
	}
	r := &readyExec{id: strings.TrimSpace(lastLine(out, nil))}
	_ = ln.SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := ln.AcceptUnix()
	if err != nil {
		s.forget(r)
		return nil, fmt.Errorf("helper in %s did not dial in: %w", s.name, err)
	}
	r.conn = conn
	return r, nil
}

// runReady hands p to a ready helper. sandbox.ErrNotReady means the
// helper was gone before taking the call; nothing ran.
func (s *session) runReady(ctx context.Context, r *readyExec, p *sandbox.Prepared, env []string) (sandbox.Result, error) {
	res := sandbox.Result{Backend: Name}
	defer s.forget(r)
	defer r.conn.Close()
	if p.Network.Mode == sandbox.NetProxy {
		env = sandbox.ProxyEnv(env, sandbox.ProxyAddr)
	}
	call := initproc.Request{Path: p.Argv[0], Argv: p.Argv, Env: env, Dir: p.Dir, Net: launch.OwnNamespaceNet(p.Network)}
	if s.nested {
		if err := nestMounts(p, &call); err != nil {
			return res, err
		}
	}
	s.cover.guardMissing(p, &call)
	req, err := json.Marshal(call)
	if err != nil {
		return res, fmt.Errorf("encode sandbox request: %w", err)
	}
	var ours, theirs []*os.File
	defer func() {
		for _, f := range append(ours, theirs...) {
			f.Close()
		}
	}()
	var pipes [initproc.CallFDs][2]*os.File // stdin, stdout, stderr, status
	for i := range pipes {
		rd, wr, err := os.Pipe()
		if err != nil {
			return res, fmt.Errorf("create sandbox pipe: %w", err)
		}
		if i == 0 {
			pipes[i] = [2]*os.File{wr, rd}
		} else {
			pipes[i] = [2]*os.File{rd, wr}
		}
		ours, theirs = append(ours, pipes[i][0]), append(theirs, pipes[i][1])
	}
	fds := make([]int, len(theirs))
	for i, f := range theirs {
		fds[i] = int(f.Fd())
	}
	var hdr [8]byte
	binary.BigEndian.PutUint64(hdr[:], uint64(len(req)))
	if _, _, err := r.conn.WriteMsgUnix(hdr[:], unix.UnixRights(fds...), nil); err != nil {
		return res, fmt.Errorf("%w: %v", sandbox.ErrNotReady, err)
	}
	for _, f := range theirs {
		f.Close()
	}
	theirs = nil
	go func() { _, _ = r.conn.Write(req) }()
	if p.Network.Mode == sandbox.NetProxy {
		// The helper listens in the container's namespace and hands the
		// socket back before it starts the target.
		stop := launch.ServeProxyFrom(r.conn, p.Network.Proxy, s.b.opts.Logger)
		defer stop()
	}

	limits := p.Limits
	out := launch.CopyOutput(pipes[1][0], pipes[2][0], limits.OutputCap(), p.Spec.Stdout, p.Spec.Stderr)
	stdin := pipes[0][0]
	if p.Spec.Stdin != nil {
		go func() {
			_, _ = io.Copy(stdin, p.Spec.Stdin)
			stdin.Close()
		}()
	} else {
		stdin.Close()
	}
	statusCh := make(chan *initproc.Status, 1)
	go func() {
		var st initproc.Status
		if json.NewDecoder(pipes[3][0]).Decode(&st) != nil {
			statusCh <- nil
			return
		}
		statusCh <- &st
	}()

	start := time.Now()
	wall, stopWall := limits.WallTimer()
	defer stopWall()
	var status *initproc.Status
	select {
	case status = <-statusCh:
	case <-ctx.Done():
		res.Killed, res.KillReason = true, sandbox.KillCanceled
		status = s.stopReady(ctx, r, limits.GraceOrDefault(), statusCh)
	case <-wall:
		res.Killed, res.KillReason = true, sandbox.KillTimeout
		status = s.stopReady(ctx, r, limits.GraceOrDefault(), statusCh)
	}
	res.Duration = time.Since(start)
	// The helper killed what the run left behind before reporting.
	out.Finish(&res, status != nil)
	launch.FillExit(&res, nil, status)
	if status == nil && !res.Killed {
		return res, errors.New("the container's helper ended without a status")
	}
	if status != nil && status.Exit == initproc.ExitSetupFailed && strings.HasPrefix(status.Error, initproc.NestFailed) {
		s.b.opts.Logger.Warn("container sandbox: the helper could not make a run's namespaces", "container", s.name, "err", status.Error)
		return res, errNestFailed
	}
	if err := launch.SetupError(status); err != nil {
		return res, err
	}
	if res.ExitCode == 127 && !res.Killed && notFound(res.Stderr) {
		return res, &sandbox.SpecError{Field: "argv[0]", Value: p.Argv[0], Err: sandbox.ErrNotFound}
	}
	if sandbox.StagingFailed(res, call.StageNonce) {
		return res, cannotStage(p)
	}
	return res, nil
}

// stopReady hangs up on the helper, which stops the run (SIGTERM, grace,
// SIGKILL) and reports. If it does not, every process in the container
// but its init is killed through the CLI.
func (s *session) stopReady(ctx context.Context, r *readyExec, grace time.Duration, statusCh <-chan *initproc.Status) *initproc.Status {
	r.conn.Close()
	t := time.NewTimer(grace + 5*time.Second)
	defer t.Stop()
	select {
	case st := <-statusCh:
		return st
	case <-t.C:
	}
	if err := s.killAll(context.WithoutCancel(ctx), "9"); err != nil {
		s.b.opts.Logger.Warn("sandbox: cannot kill inside the container; removing it", "container", s.name, "err", err)
		_ = s.close(context.WithoutCancel(ctx))
	}
	select {
	case st := <-statusCh:
		return st
	case <-time.After(5 * time.Second):
		return nil
	}
}
