package agentbox

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/notify"
)

// Init is the first process inside the sandbox (`gatehouse __run-init
// --agent-port N -- AGENT…`): it opens the proxy's and the agent routes'
// listeners in the sandbox's network namespace, hands them out on
// handoffFD, installs the filters and execs the agent (with --reap,
// starts it and stays: superviseAgent). It returns only on failure, with
// the exit status to use.
func Init(args []string) int {
	if err := initAndExec(args); err != nil {
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	argv := fs.Args()
	if len(argv) == 0 || *port <= 0 {
		return errors.New("usage: __run-init --agent-port N [--reap] -- COMMAND")
	}
	for _, addr := range []string{ProxyAddr, net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))} {
		if err := handOut(addr); err != nil {
			return err
		}
	}
	if err := handOutDiag(); err != nil {
		return err
	}
	syscall.Close(handoffFD)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	// The filters belong to the thread that execs.
	runtime.LockOSThread()
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
	return fmt.Errorf("exec %s: %w", path, syscall.Exec(path, argv, os.Environ()))
}

// handOut listens on addr and passes the listener out.
func handOut(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s in the sandbox: %w", addr, err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fdpass.Send(handoffFD, []byte{0}, int(f.Fd())); err != nil {
		return fmt.Errorf("hand out the listener on %s: %w", addr, err)
	}
	return nil
}

// handOutDiag passes out a socket-diagnostics netlink socket of the
// sandbox's network namespace, with which `gatehouse run` finds the
// socket behind a connection to the proxy by its addresses (Box.Process)
// instead of reading the namespace's whole TCP table. It answers queries
// only; nothing inside can use it.
func handOutDiag() error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return fmt.Errorf("open a socket-diagnostics socket in the sandbox: %w", err)
	}
	defer unix.Close(fd)
	if err := fdpass.Send(handoffFD, []byte{0}, fd); err != nil {
		return fmt.Errorf("hand out the socket-diagnostics socket: %w", err)
	}
	return nil
}
