package agentbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"github.com/gatehouse-dev/gatehouse/sandbox/standin"
)

// Box is a running confined agent.
type Box struct {
	cmd *exec.Cmd
	// Proxy and Agent are the listeners the first process inside opened
	// in the sandbox's network namespace: the proxy's (ProxyAddr) and the
	// daemon's agent routes' (Spec.AgentPort). Serve them with Forward.
	Proxy, Agent net.Listener
	// Hosts are the listeners for the host ports (Spec.HostPorts), by
	// port: inside, at 127.0.0.1 and ::1; on Landlock, on the host's
	// loopback, where a route leads the port. Serve them with Hand.
	Hosts map[int][]net.Listener
	// diag is a socket-diagnostics netlink socket in the sandbox's
	// network namespace (Process), -1 without one.
	diag    int
	diagSeq uint32
	diagMu  sync.Mutex
	// sockets makes sockets in the sandbox's network namespace
	// (DialInside), nil without.
	sockets *insideSockets
	scratch string
	// kill is what Kill sends the sandbox's first process.
	kill syscall.Signal
	// leave, when set, ends the guard over the agent's settings once the
	// run is gone (on Landlock), saying what it put back.
	leave      func() []sandbox.Violation
	violations []sandbox.Violation
	// container is the run's container, nil under bubblewrap; agentPID
	// its first process on the host (no child of its CLI), known once
	// pidKnown is closed.
	container *Container
	agentPID  int
	pidKnown  chan struct{}
	// ownGroup: the sandbox leads a process group of its own (Group).
	ownGroup bool
	// watch ends the container's watcher (watchOwner).
	watch   *os.File
	done    chan struct{}
	state   *os.ProcessState
	waitErr error
}

// Start starts the agent in its sandbox and waits until the first
// process inside has handed out its listeners (the agent starts right
// after). The terminal is the agent's from here on: the caller keeps
// stdin, stdout and stderr untouched until Wait returns.
func Start(ctx context.Context, s Spec) (*Box, error) {
	if s.Landlock {
		return startLandlock(ctx, s)
	}
	if !filepath.IsAbs(s.Init) {
		return nil, fmt.Errorf("the gatehouse binary must be an absolute path, not %q", s.Init)
	}
	scratch, err := makeScratch()
	if err != nil {
		return nil, err
	}
	empty, info := filepath.Join(scratch, "empty"), filepath.Join(scratch, "run.json")
	infoJSON, _ := json.Marshal(s.Info)
	for _, f := range []struct {
		path string
		data []byte
	}{{empty, nil}, {info, infoJSON}} {
		if err := os.WriteFile(f.path, f.data, 0o444); err != nil {
			os.RemoveAll(scratch)
			return nil, err
		}
	}
	covers := standin.Make(scratch, s.Hidden)
	if !s.Landlock {
		// Landlock's fresh home copies them without their credentials
		// itself (sandbox.FreshHome).
		copies, err := sandbox.RedactedHomeConfigs(s.Home, scratch)
		if err != nil {
			os.RemoveAll(scratch)
			return nil, err
		}
		for real, cp := range copies {
			covers[real] = cp
			s.Hidden = append(s.Hidden, real)
		}
	}
	early := s.Early
	if early != nil && (early.used || early.init != s.Init || early.port != s.AgentPort) {
		early.Discard()
		early = nil
	}
	if early == nil {
		early = Prepare(s)
	}
	var cmd *exec.Cmd
	var ours, watch *os.File
	what := "the sandbox's first process"
	if early != nil {
		cmd, ours, err = early.give(s, empty, info, covers)
	} else {
		// bubblewrap where the kernel refused this process the
		// namespaces (nothing ran), or a container.
		rt := runtimeOf(s)
		what = rt.what
		cmd, ours, watch, err = launch(rt, s, scratch, empty, info, covers)
	}
	if err != nil {
		os.RemoveAll(scratch)
		return nil, err
	}
	defer ours.Close()
	b := started(cmd, scratch, syscall.SIGKILL)
	b.ownGroup = s.OwnGroup
	b.container, b.watch = s.Container, watch
	got, err := receiveListeners(ctx, int(ours.Fd()), b.done, len(s.HostPorts))
	if err != nil {
		b.Kill()
		<-b.done
		b.cleanup()
		if errors.Is(err, errNotStarted) && b.state != nil && b.state.Exited() {
			// Its own message went to the run's stderr; the session and
			// the audit keep this line, so it names what ended and how.
			err = fmt.Errorf("%w: %s exited with status %d", err, what, b.state.ExitCode())
		}
		return nil, err
	}
	b.Proxy, b.Agent, b.diag = got.lns[0], got.lns[1], got.diag
	b.Hosts = hostsByPort(got.hosts, s.HostPorts)
	if got.sockets >= 0 {
		b.sockets = &insideSockets{fd: got.sockets}
	}
	if s.Container != nil {
		// Looked up while the agent starts. Without it (an agent that
		// ended at once) connections are attributed to no process; the
		// run goes on.
		b.pidKnown = make(chan struct{})
		go func() {
			b.agentPID, _ = containerPID(ctx, s.Container)
			close(b.pidKnown)
		}()
	}
	return b, nil
}

// launch starts the sandbox's runtime with the hand-off socket as the
// first process's handoffFD, and returns our end of it (and, for a
// container, its watcher). An error means nothing started.
func launch(rt sandboxRuntime, s Spec, scratch, empty, info string, covers map[string]string) (*exec.Cmd, *os.File, *os.File, error) {
	if !filepath.IsAbs(rt.path) {
		return nil, nil, nil, fmt.Errorf("%s must be an absolute path, not %q", rt.what, rt.path)
	}
	cmd, err := rt.command(s, scratch, empty, info, covers)
	if err != nil {
		return nil, nil, nil, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("hand-off socket: %w", err)
	}
	ours := os.NewFile(uintptr(pair[0]), "handoff")
	theirs := os.NewFile(uintptr(pair[1]), "handoff-child")
	defer theirs.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.Stdin, s.Stdout, s.Stderr
	cmd.ExtraFiles = []*os.File{theirs} // fd 3, handoffFD
	// The same session and process group as this process: the terminal's
	// foreground job, so its signals (Ctrl-C, Ctrl-Z, a window change)
	// reach the agent as they would unconfined; a group of its own when
	// there is no terminal (Spec.OwnGroup). If this process dies, so does
	// the sandbox (a container's, through watchOwner).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: s.OwnGroup}
	var watch *os.File
	if s.Container != nil {
		if watch, err = watchOwner(s.Container); err != nil {
			ours.Close()
			return nil, nil, nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		ours.Close()
		endWatch(watch)
		return nil, nil, nil, fmt.Errorf("start %s: %w", rt.what, err)
	}
	return cmd, ours, watch, nil
}

// started is the Box of a started cmd, waited for in the background;
// Kill sends it kill.
func started(cmd *exec.Cmd, scratch string, kill syscall.Signal) *Box {
	b := &Box{cmd: cmd, scratch: scratch, done: make(chan struct{}), diag: -1, kill: kill}
	go func() {
		b.state, b.waitErr = cmd.Process.Wait()
		close(b.done)
	}()
	return b
}

// sandboxRuntime is what starts the sandbox when its first process does
// not make it itself (Early): bubblewrap, or a container.
type sandboxRuntime struct {
	what, path string
	command    func(s Spec, scratch, empty, info string, covers map[string]string) (*exec.Cmd, error)
}

func runtimeOf(s Spec) sandboxRuntime {
	if s.Container != nil {
		return sandboxRuntime{"the container CLI", s.Container.CLI, podmanCommand}
	}
	return sandboxRuntime{"bubblewrap", s.Bwrap, func(s Spec, _, empty, info string, covers map[string]string) (*exec.Cmd, error) {
		cmd := exec.Command(s.Bwrap, args(s, empty, info, covers)...)
		cmd.Env = s.Env
		return cmd, nil
	}}
}

// useBwrap makes bubblewrap start every sandbox (the tests compare the
// two).
var useBwrap = false

// cleanup removes what the run left on the host once it has ended: its
// scratch directory and, when its CLI was killed before it could, its
// container.
func (b *Box) cleanup() {
	if b.container != nil && (b.state == nil || !b.state.Exited()) {
		removeContainer(b.container)
	}
	endWatch(b.watch)
	os.RemoveAll(b.scratch)
}

// handedIn is what the first process inside handed out.
type handedIn struct {
	lns [2]net.Listener
	// hosts are the host ports' listeners, when the run has host ports.
	hosts []net.Listener
	// diag and sockets are -1 when a first process of an older build sent
	// none.
	diag, sockets int
	err           error
}

// receiveListeners reads the proxy's and the agent routes' listeners
// from the hand-off socket, in that order, then the socket-diagnostics
// socket and the socket maker's end, then, with hostPorts, one message of
// their listeners.
func receiveListeners(ctx context.Context, sock int, exited <-chan struct{}, hostPorts int) (handedIn, error) {
	ch := make(chan handedIn, 1)
	go func() {
		g := handedIn{diag: -1, sockets: -1}
		for i := range g.lns {
			fd, _, err := fdpass.ReceiveOne(sock, make([]byte, 1))
			if err != nil {
				g.err = err
				break
			}
			f := os.NewFile(uintptr(fd), "listener")
			ln, err := net.FileListener(f)
			f.Close()
			if err != nil {
				g.err = err
				break
			}
			g.lns[i] = ln
		}
		if g.err == nil {
			if fd, _, err := fdpass.ReceiveOne(sock, make([]byte, 1)); err == nil {
				unix.CloseOnExec(fd)
				// A lookup waits at most a second for its answer.
				_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 1})
				g.diag = fd
				if fd, _, err := fdpass.ReceiveOne(sock, make([]byte, 1)); err == nil {
					unix.CloseOnExec(fd)
					g.sockets = fd
				}
				if hostPorts > 0 {
					g.hosts, g.err = receiveHosts(sock, hostPorts)
				}
			}
		}
		ch <- g
	}()
	select {
	case g := <-ch:
		return handedOut(g)
	case <-exited:
		// A command that ends at once may have handed its listeners out
		// before it did (then it ran): with every end of the socket
		// inside closed, what was sent is read at once, then the end.
		select {
		case g := <-ch:
			if g.err == nil {
				return g, nil
			}
		case <-time.After(time.Second):
		}
		return handedIn{}, errNotStarted
	case <-ctx.Done():
		return handedIn{}, ctx.Err()
	case <-time.After(30 * time.Second):
		return handedIn{}, errors.New("the sandbox did not start within 30 s")
	}
}

// receiveHosts reads the one message of the host ports' listeners: two
// for each of ports, or one where the sandbox has no IPv6.
func receiveHosts(sock, ports int) ([]net.Listener, error) {
	fds, err := fdpass.Receive(sock, make([]byte, 1), 2*ports)
	if err != nil {
		return nil, fmt.Errorf("receive the host ports' listeners: %w", err)
	}
	var lns []net.Listener
	for _, fd := range fds {
		f := os.NewFile(uintptr(fd), "listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			continue
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// errNotStarted: the sandbox ended, or its first process gave up,
// before the hand-off; what failed said why on the run's stderr.
var errNotStarted = errors.New("the sandbox did not start (see the message above)")

// handedOut is what receiveListeners returns for what was received.
func handedOut(g handedIn) (handedIn, error) {
	if errors.Is(g.err, io.EOF) {
		// Its first process said why on stderr, and closed its end.
		return g, errNotStarted
	}
	if g.err != nil {
		return g, fmt.Errorf("%w: %w", errNotStarted, g.err)
	}
	return g, nil
}

// PID is the process id on the host of the sandbox's first process (its
// PID 1) or of bubblewrap, of the container CLI, or of the supervisor on
// Landlock.
func (b *Box) PID() int { return b.cmd.Process.Pid }

// Kill ends the agent and everything it started: the sandbox's first
// process, its PID 1, is killed, and its PID namespace with it (or
// bubblewrap, and its child dies with it). On Landlock the supervisor, the run's
// subreaper, is asked to end the tree (see landlock_linux.go). A
// container's first process is no child of its CLI: the container is
// killed by name (see killContainer).
func (b *Box) Kill() {
	if b.container != nil && killContainer(b.container) == nil {
		return // its CLI reports the end and removes it
	}
	_ = b.cmd.Process.Signal(b.kill)
}

// Group is the process group the sandbox was started in when it has one
// of its own (Spec.OwnGroup), 0 otherwise or once it has exited: a
// signal for the agent goes there, as a terminal's goes to its
// foreground group.
func (b *Box) Group() int {
	select {
	case <-b.done:
		return 0
	default:
	}
	if !b.ownGroup {
		return 0
	}
	return b.cmd.Process.Pid // Setpgid made it the group's leader
}

// Violations say, once Wait has returned, what the agent changed that
// stays read-only and was put back (on Landlock, where its settings are
// guarded: see landlock_linux.go).
func (b *Box) Violations() []sandbox.Violation { return b.violations }

// Done is closed once the sandbox has exited.
func (b *Box) Done() <-chan struct{} { return b.done }

// Wait waits for the sandbox and returns the agent's exit status as a
// shell reports it (128+N for a signal).
func (b *Box) Wait() (int, error) {
	<-b.done
	if b.Proxy != nil {
		b.Proxy.Close()
		b.Agent.Close()
	}
	for _, lns := range b.Hosts {
		for _, ln := range lns {
			ln.Close()
		}
	}
	b.diagMu.Lock()
	if b.diag >= 0 {
		unix.Close(b.diag)
		b.diag = -1
	}
	b.diagMu.Unlock()
	b.sockets.close()
	b.cleanup()
	if b.leave != nil {
		b.violations, b.leave = b.leave(), nil
	}
	if b.waitErr != nil {
		return -1, b.waitErr
	}
	ws, _ := b.state.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return b.state.ExitCode(), nil
}

// hostsByPort files each listener under its port, if that is one of
// ports; any other is closed (the first process inside said which is
// which by address alone).
func hostsByPort(lns []net.Listener, ports []int) map[int][]net.Listener {
	out := map[int][]net.Listener{}
	for _, ln := range lns {
		a, ok := ln.Addr().(*net.TCPAddr)
		if !ok || !a.IP.IsLoopback() || !slices.Contains(ports, a.Port) {
			ln.Close()
			continue
		}
		out[a.Port] = append(out[a.Port], ln)
	}
	return out
}
