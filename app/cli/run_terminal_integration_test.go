//go:build integration

package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// openPTY opens a pseudo-terminal pair: the test holds the master side,
// the command gets the other as its terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// onTerminal starts `gatehouse run -- sh -c script` on a terminal of its
// own, as a person's shell would: a session leader with the terminal as
// its controlling terminal, in the foreground.
func onTerminal(t *testing.T, d *clitest.Daemon, rows, cols uint16, script string) (master *os.File, out *clitest.LockedBuffer, exited chan error) {
	t.Helper()
	master, tty := openPTY(t)
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace, "--", "sh", "-c", script)
	cmd.Env = append(d.Env(), "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	out = &clitest.LockedBuffer{}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return master, out, exited
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

// TestRunTerminalPassesThrough: a confined command has the person's
// terminal: its size and a change of it, raw mode, Ctrl-C; and it cannot
// push input into the terminal (TIOCSTI), which the person's shell would
// read as typed once the agent exits. On each backend; in a container the
// terminal is podman's own, inside, with the person's size and raw mode.
func TestRunTerminalPassesThrough(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			runTerminalPassesThrough(t, d)
			if backend == "container" {
				ctrlZContinues(t, d)
			}
		})
	}
}

func runTerminalPassesThrough(t *testing.T, d *clitest.Daemon) {
	script := `stty size; stty -icanon -echo; stty -a | grep -o -- '-icanon' ;
perl -e '$c = "x"; print ioctl(STDIN, 0x5412, $c) ? "TIOCSTI-ALLOWED\n" : "TIOCSTI-REFUSED\n"';
trap 'stty size; exit 3' WINCH; echo READY; while :; do sleep 0.1; done`
	master, out, exited := onTerminal(t, d, 30, 100, script)
	clitest.WaitFor(t, 30*time.Second, "the confined command ready on its terminal", func() bool { return strings.Contains(out.String(), "READY") })
	for _, want := range []string{"30 100", "-icanon", "TIOCSTI-REFUSED"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("terminal output lacks %q:\n%s", want, out.String())
		}
	}
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if code := exitCode(t, err); code != 3 || !strings.Contains(out.String(), "40 120") {
			t.Fatalf("after the window change: exit %d, output:\n%s", code, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the window change did not reach the confined command:\n%s", out.String())
	}

	// exec: a shell that forks after saying READY could take the Ctrl-C
	// before its child exists and wait for that child, as it does bare.
	if code, out := typeKey(t, d, `echo READY; exec sleep 100`, 3); code != 130 { // Ctrl-C
		t.Fatalf("Ctrl-C: exit %d, want 130 (the command's SIGINT), output:\n%s", code, out)
	}
	// A command that handles Ctrl-C (an agent interrupting its turn)
	// goes on, as it would unconfined: the sandbox does not end with it.
	if code, out := typeKey(t, d, `trap 'echo GOT-INT; exit 5' INT; echo READY; while :; do sleep 0.1; done`, 3); code != 5 || !strings.Contains(out, "GOT-INT") {
		t.Fatalf("Ctrl-C to a command that handles it: exit %d, want its own 5, output:\n%s", code, out)
	}
}

// ctrlZContinues: in a container, Ctrl-Z is no job control (nothing
// inside would continue the agent): a command it stops goes on.
func ctrlZContinues(t *testing.T, d *clitest.Daemon) {
	if code, out := typeKey(t, d, `echo READY; sleep 2; echo AFTER-STOP`, 0x1a); code != 0 || !strings.Contains(out, "AFTER-STOP") {
		t.Fatalf("after Ctrl-Z: exit %d, output:\n%s", code, out)
	}
}

// typeKey starts script on a terminal, types key once it says READY, and
// returns its exit status and what it wrote.
func typeKey(t *testing.T, d *clitest.Daemon, script string, key byte) (int, string) {
	t.Helper()
	master, out, exited := onTerminal(t, d, 24, 80, script)
	clitest.WaitFor(t, 30*time.Second, "the command ready", func() bool { return strings.Contains(out.String(), "READY") })
	if _, err := master.Write([]byte{key}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		return exitCode(t, err), out.String()
	case <-time.After(30 * time.Second):
		t.Fatalf("the command did not end after key %#x:\n%s", key, out.String())
		return 0, ""
	}
}
