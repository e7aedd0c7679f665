package launch

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"golang.org/x/sys/unix"
)

// Zygote is one session layout's long-lived helper, which starts each of
// the session's sandboxes of that layout on request (see initproc's
// zygote.go): bwrap's makes the layout and clones its namespaces for
// each run, Landlock's starts each run's supervisor from a process that
// takes the orphans of one that died. A sandbox costs one helper start
// and none of the daemon's forks and reaps.
type Zygote struct {
	layout string
	cmd    *exec.Cmd
	ctl    *net.UnixConn // SOCK_SEQPACKET: a request and its reply per message
	mu     sync.Mutex    // one spawn at a time, so replies match requests
	exited chan struct{} // closed once the zygote has been waited for
	// lastWords is the zygote's last line on stderr (why it failed),
	// set before exited is closed.
	lastWords string
}

// spawnTimeout bounds one spawn: the zygote answers in about a
// millisecond; one that does not within this is stuck and is stopped.
const spawnTimeout = 30 * time.Second

// ErrZygoteGone: the zygote exited (a failed layout, or killed), and a
// new one may do better.
var ErrZygoteGone = errors.New("the session's sandbox template is gone")

// StartZygote runs argv (a helper's command line up to its config) with
// cfg, a zygote's config (cfg.Zygote set), as its last argument; the
// zygote makes whatever it makes before it reads the first request, so
// a spawn waits for it.
func StartZygote(argv []string, cfg initproc.Config, layout string, log *slog.Logger) (*Zygote, error) {
	fds, err := seqpacketPair()
	if err != nil {
		return nil, err
	}
	ours, theirs := fds[0], fds[1]
	defer theirs.Close()
	z := *cfg.Zygote
	z.ControlFD = 3
	cfg.Zygote = &z
	enc, err := cfg.Encode()
	if err != nil {
		ours.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], append(argv[1:len(argv):len(argv)], enc)...)
	// The zygote serves one request at a time; one processor will do.
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{theirs}
	// A session of its own, and it dies with the daemon, and with it
	// every run of the session.
	cmd.SysProcAttr = sysProcAttr()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("start the sandbox template: %w", err)
	}
	if err := cmd.Start(); err != nil {
		ours.Close()
		return nil, fmt.Errorf("start the sandbox template: %w", err)
	}
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("start the sandbox template: %w", err)
	}
	zy := &Zygote{layout: layout, cmd: cmd, ctl: c.(*net.UnixConn), exited: make(chan struct{})}
	// The zygote has nothing to say but why it failed: that goes to the
	// log, and to the spawn that finds it gone.
	go func() {
		var last string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			last = sc.Text()
			log.Warn("sandbox template", "line", last)
		}
		err := cmd.Wait()
		log.Debug("sandbox template exited", "err", err)
		zy.lastWords = last
		close(zy.exited)
	}()
	return zy, nil
}

// Layout is the layout z serves.
func (z *Zygote) Layout() string { return z.layout }

// Exited is closed once the zygote has exited and been waited for.
func (z *Zygote) Exited() <-chan struct{} { return z.exited }

// ExitCode is the zygote's exit status, once Exited is closed.
func (z *Zygote) ExitCode() int { return z.cmd.ProcessState.ExitCode() }

// Gone reports whether the zygote has exited.
func (z *Zygote) Gone() bool {
	select {
	case <-z.exited:
		return true
	default:
		return false
	}
}

// Spawn asks the zygote for one sandbox, with the message encode makes
// (told whether the run's cgroup.procs comes along, as a sixth
// descriptor), and returns a pidfd of its first process.
func (z *Zygote) Spawn(encode func(cgroup bool) ([]byte, error), f SpawnFiles) (int, error) {
	files := []*os.File{f.Stdin, f.Stdout, f.Stderr, f.Request, f.Status}
	if f.Cgroup != nil {
		files = append(files, f.Cgroup)
	}
	msg, err := encode(f.Cgroup != nil)
	if err != nil {
		return -1, err
	}
	fds := make([]int, len(files))
	for i, file := range files {
		fds[i] = int(file.Fd())
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.Gone() {
		return -1, z.goneErr()
	}
	_ = z.ctl.SetDeadline(time.Now().Add(spawnTimeout))
	if _, _, err := z.ctl.WriteMsgUnix(msg, unix.UnixRights(fds...), nil); err != nil {
		return -1, z.failed(err)
	}
	buf := make([]byte, initproc.MaxSpawnMessage+1)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, flags, _, err := z.ctl.ReadMsgUnix(buf, oob)
	if err != nil || n == 0 {
		return -1, z.failed(err)
	}
	pidfds, rerr := fdpass.ParseRights(oob[:oobn])
	if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 || rerr != nil || len(pidfds) > 1 {
		closeAll(pidfds)
		return -1, z.failed(errors.New("unreadable reply"))
	}
	rep, err := initproc.DecodeReply(buf[:n])
	switch {
	case err != nil:
		closeAll(pidfds)
		return -1, z.failed(err)
	case rep.Error != "":
		closeAll(pidfds)
		return -1, fmt.Errorf("the sandbox template could not start a sandbox: %s", rep.Error)
	case len(pidfds) != 1:
		return -1, z.failed(errors.New("reply without the sandbox's pidfd"))
	}
	return pidfds[0], nil
}

// failed stops a zygote that broke its protocol or went away, and says
// which. One that hung up (err nil: end of file) is exiting and is given a
// moment, so that its last words and exit status are its own.
func (z *Zygote) failed(err error) error {
	if err == nil || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		select {
		case <-z.exited:
		case <-time.After(time.Second):
		}
	}
	z.Close()
	<-z.exited
	if err == nil {
		err = errors.New("it hung up")
	}
	return fmt.Errorf("%w: %w", z.goneErr(), err)
}

func (z *Zygote) goneErr() error {
	if z.lastWords != "" {
		return fmt.Errorf("%w (%s)", ErrZygoteGone, z.lastWords)
	}
	return ErrZygoteGone
}

// Close stops the zygote: closing its socket ends it, and SIGKILL ends it
// for sure (bwrap's with every run still in it; each of Landlock's
// supervisors is told to stop then, and ends its run as on a timeout).
func (z *Zygote) Close() {
	z.ctl.Close()
	_ = z.cmd.Process.Kill()
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
