package agentbox

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/notify"
)

// Init is the first process inside the sandbox (`gatehouse __run-init
// --agent-port N -- AGENT…`): with --root-fd, started in namespaces of
// its own, it first makes the sandbox's whole file system (the Root read
// from that descriptor: see rootSteps and initproc.MakeRoot); then it
// opens the proxy's and the agent routes' listeners in the sandbox's
// network namespace, hands them out on handoffFD, installs the filters
// and execs the agent (with --reap or --root-fd, starts it and stays its
// PID 1: superviseAgent). It returns only on failure, with the exit
// status to use.
func Init(args []string) int {
	if err := initAndExec(args); err != nil && !errors.Is(err, errNoRoot) {
		fmt.Fprintf(os.Stderr, "gatehouse run: %v\n", err)
	}
	return 126
}

func initAndExec(args []string) error {
	fs := flag.NewFlagSet(InitEntry, flag.ContinueOnError)
	port := fs.Int("agent-port", 0, "")
	// --reap: stay PID 1 with the agent as a child (superviseAgent), in a
	// container; bubblewrap has a PID 1 of its own.
	reap := fs.Bool("reap", false, "")
	var uncreatable []string
	fs.Func("uncreatable", "", func(p string) error { uncreatable = append(uncreatable, p); return nil })
	// --root-fd N: the sandbox's Root, to make before anything else (the
	// namespaces are new and empty, and this process is their PID 1).
	rootFD := fs.Int("root-fd", 0, "")
	// --publish: stay, with the agent as a child, where this process
	// would exec it, to make sockets for the ports the person published
	// (publish_linux.go); with --reap or --root-fd it stays anyway.
	publish := fs.Bool("publish", false, "")
	var hostPorts []int
	fs.Func("host-port", "", func(v string) error {
		p, err := strconv.Atoi(v)
		if err != nil || p <= 0 || p > 65535 {
			return fmt.Errorf("--host-port %q is not a port", v)
		}
		hostPorts = append(hostPorts, p)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	argv := fs.Args()
	if len(argv) == 0 && *rootFD == 0 || *port <= 0 || *rootFD != 0 && (*rootFD <= handoffFD || *reap) {
		return errors.New("usage: __run-init --agent-port N [--reap] -- COMMAND, or __run-init --agent-port N --root-fd FD")
	}
	if *rootFD > 0 {
		if err := enterRoot(); err != nil {
			return err
		}
	}
	// Opened while the Root may still be on its way; handed out once it
	// is made, as the agent is about to start.
	out, sockets, err := openHandOut(*port)
	if err != nil {
		return err
	}
	if *rootFD > 0 {
		var root initproc.Root
		if root, err = makeRoot(*rootFD); err != nil {
			return err
		}
		argv, uncreatable = root.Argv, root.Uncreatable
		hostPorts = append(hostPorts, root.HostPorts...)
	}
	if err := handOut(out); err != nil {
		sockets.Close()
		return err
	}
	// Before the agent starts: nothing of its own takes a host port.
	if err := handOutHostPorts(hostPorts); err != nil {
		sockets.Close()
		return err
	}
	syscall.Close(handoffFD)
	go serveSockets(sockets)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	// The filters and capabilities belong to the thread that execs (or
	// starts the agent).
	runtime.LockOSThread()
	if *rootFD > 0 {
		if err := agentCaps(); err != nil {
			return err
		}
	}
	holdsCaps, err := dropReach()
	if err != nil {
		return err
	}
	if err := notify.ApplySockets(notify.Namespaced); err != nil {
		return err
	}
	if err := notify.ApplyTerminal(); err != nil {
		return err
	}
	if len(uncreatable) > 0 {
		return superviseGuarded(uncreatable, holdsCaps, path, argv, *reap)
	}
	if *reap {
		return superviseAgent(path, argv, true)
	}
	if *rootFD > 0 || *publish {
		return superviseAgent(path, argv, false)
	}
	return fmt.Errorf("exec %s: %w", path, syscall.Exec(path, argv, os.Environ()))
}

// makeRoot readies this process's new namespaces, then reads the
// sandbox's Root from fd (written once `gatehouse run` knows it: it may
// start this process while the daemon opens the run), makes it, and
// takes on the agent's command and environment. It returns the Root:
// the command, and the names its creation guard keeps from being made.
// This process then stays the sandbox's PID 1, its other threads holding
// capabilities in the sandbox's user namespace, so it makes itself
// undumpable: only a process with CAP_SYS_PTRACE there (none, once the
// agent runs) may look into it or trace it.
func makeRoot(fd int) (initproc.Root, error) {
	f := os.NewFile(uintptr(fd), "root")
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return initproc.Root{}, fmt.Errorf("read the sandbox's root: %w", err)
	}
	if len(b) == 0 {
		return initproc.Root{}, errNoRoot
	}
	root, err := initproc.DecodeRoot(b)
	if err != nil {
		return root, err
	}
	if err := initproc.MakeRoot(root); err != nil {
		return initproc.Root{}, err
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return initproc.Root{}, fmt.Errorf("hide the sandbox's first process from the agent: %w", err)
	}
	os.Clearenv()
	for _, kv := range root.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			_ = os.Setenv(k, v)
		}
	}
	// As bwrap's --chdir says.
	return root, os.Setenv("PWD", root.Dir)
}

// enterRoot readies this process's new namespaces for the Root
// (initproc.EnterRoot), and makes now what would otherwise wait for it:
// the socket filter's program, the capability count.
func enterRoot() error {
	// Until the agent's own supervision (superviseAgent), the terminal's
	// signals are not this process's end: the runtime would exit on them.
	// All that superviseAgent catches are caught now, while the Root may
	// still be on its way: each costs the runtime a round trip with its
	// signal thread the first time.
	signal.Notify(make(chan os.Signal, 1), caught...)
	if err := initproc.EnterRoot(hostname); err != nil {
		return err
	}
	notify.Warm()
	caps.LastCap()
	return nil
}

// agentCaps leaves the agent, once the mounts are made, the
// capabilities bubblewrap left it: none for a person who is not root;
// for root, root's own in the sandbox's user namespace but
// CAP_SYS_RESOURCE, as bwrap keeps them for uid 0 (an agent's own
// sandbox, Codex's bubblewrap, starts from them), with nothing ambient.
// no_new_privs is set either way.
func agentCaps() error {
	if os.Getuid() != 0 {
		return caps.DropAll()
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_RESOURCE, 0, 0, 0); err != nil {
		return fmt.Errorf("drop CAP_SYS_RESOURCE: %w", err)
	}
	// Root's inheritable set would bring it back on exec.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	for i := range data {
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear inheritable capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	return nil
}

// errNoRoot: `gatehouse run` started this process ahead of the daemon's
// answer, and did not start the run after all.
var errNoRoot = errors.New("no sandbox root came")

// openHandOut opens what this process hands out, in that order: the
// proxy's and the agent routes' listeners in the sandbox's network
// namespace, a socket-diagnostics netlink socket of the namespace,
// with which `gatehouse run` finds the socket behind a connection to the
// proxy by its addresses (Box.Process) instead of reading the
// namespace's whole TCP table (it answers queries only; nothing inside
// can use it), and the outside end of the pair this process makes
// sockets on (publish_linux.go). It returns the inside end apart.
func openHandOut(port int) (out []*os.File, sockets *os.File, err error) {
	fail := func(err error) ([]*os.File, *os.File, error) {
		for _, f := range out {
			f.Close()
		}
		return nil, nil, err
	}
	for _, addr := range []string{ProxyAddr, net.JoinHostPort("127.0.0.1", strconv.Itoa(port))} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fail(fmt.Errorf("listen on %s in the sandbox: %w", addr, err))
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			return fail(err)
		}
		out = append(out, f)
	}
	fd, err := openSockDiag()
	if err != nil {
		return fail(fmt.Errorf("open a socket-diagnostics socket in the sandbox: %w", err))
	}
	out = append(out, os.NewFile(uintptr(fd), "sock-diag"))
	inside, outside, err := socketsPair()
	if err != nil {
		return fail(err)
	}
	return append(out, outside), inside, nil
}

// handOutHostPorts listens on each host port at 127.0.0.1 and, where the
// namespace has IPv6, ::1, and passes the listeners out in one message
// (none without host ports), closing them here.
func handOutHostPorts(ports []int) error {
	if len(ports) == 0 {
		return nil
	}
	var out []*os.File
	defer func() {
		for _, f := range out {
			f.Close()
		}
	}()
	for _, p := range ports {
		for _, host := range []string{"127.0.0.1", "::1"} {
			addr := net.JoinHostPort(host, strconv.Itoa(p))
			ln, err := net.Listen("tcp", addr)
			if err != nil && host == "::1" && (errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT)) {
				continue // IPv6 is off here: no client dials ::1
			}
			if err != nil {
				return fmt.Errorf("listen on %s in the sandbox: %w", addr, err)
			}
			f, err := ln.(*net.TCPListener).File()
			ln.Close()
			if err != nil {
				return err
			}
			out = append(out, f)
		}
	}
	fds := make([]int, len(out))
	for i, f := range out {
		fds[i] = int(f.Fd())
	}
	if err := fdpass.Send(handoffFD, []byte{0}, fds...); err != nil {
		return fmt.Errorf("hand out the sandbox's host ports: %w", err)
	}
	return nil
}

// handOut passes out what openHandOut opened, and closes it here.
func handOut(out []*os.File) error {
	defer func() {
		for _, f := range out {
			f.Close()
		}
	}()
	for _, f := range out {
		if err := fdpass.Send(handoffFD, []byte{0}, int(f.Fd())); err != nil {
			return fmt.Errorf("hand out the sandbox's sockets: %w", err)
		}
	}
	return nil
}
