package proof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TerminalProbeEntry is the gatehouse binary's hidden command for the
// terminal row: in a session of its own with its stdin, a terminal, as
// its controlling terminal, it pushes a byte into that terminal's input
// with TIOCSTI and says what happened ("TIOCSTI ok", or "TIOCSTI
// refused: ERRNO").
const TerminalProbeEntry = "__doctor-tiocsti"

// TerminalProbe is TerminalProbeEntry's body.
func TerminalProbe([]string) int {
	if pid := unix.Getpid(); func() int { s, _ := unix.Getsid(0); return s }() != pid {
		_, _ = unix.Setsid()
		_ = unix.IoctlSetInt(0, unix.TIOCSCTTY, 0)
	}
	c := byte('#')
	_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	if e != 0 {
		fmt.Printf("TIOCSTI refused: %s (%s)\n", unix.ErrnoName(e), e.Error())
		return 1
	}
	fmt.Println("TIOCSTI ok")
	return 0
}

// openPTY opens a new terminal pair, neither end this process's
// controlling terminal.
func openPTY() (master, tty *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	t, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, t, nil
}

// checkTerminal runs the probe on a terminal of its own, first outside
// any sandbox (does this kernel allow TIOCSTI at all?), then as the
// confined agent. The person's own terminal is never used.
func (c *confinedEnv) checkTerminal(ctx context.Context) (Outcome, string) {
	master, tty, err := openPTY()
	if err != nil {
		return Unavailable, fmt.Sprintf("cannot open a terminal to probe with: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	// What the kernel does for an unconfined process.
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ctl := exec.CommandContext(cctx, c.o.Init, TerminalProbeEntry)
	ctl.Stdin = tty
	ctl.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out, err := ctl.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Unavailable, fmt.Sprintf("cannot run the terminal probe: %v", err)
	}
	control := strings.TrimSpace(string(out))
	// What the control pushed waits in the terminal's input: a container
	// run's CLI would read it and type it into the probe's terminal.
	_ = unix.IoctlSetInt(int(tty.Fd()), unix.TCFLSH, unix.TCIFLUSH)
	r := c.run(ctx, []string{c.o.Init, TerminalProbeEntry}, tty, nil)
	inside := strings.TrimSpace(string(r.stdout))
	switch {
	case r.err != nil:
		return Fail, fmt.Sprintf("run failed: %v", r.err)
	case strings.Contains(inside, "TIOCSTI ok"):
		return Fail, "the agent pushed input into its terminal with TIOCSTI"
	case !strings.HasPrefix(inside, "TIOCSTI refused"):
		return Fail, "the probe did not run: " + firstLine(append(r.stderr, r.stdout...))
	case control == "TIOCSTI ok":
		return Pass, inside + " (unconfined, the same call succeeds here)"
	}
	return Pass, inside + "; this kernel refuses it to every process too (" + control + ")"
}
