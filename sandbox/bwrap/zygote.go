package bwrap

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
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"golang.org/x/sys/unix"
)

// zygote is one bwrap, started once per session layout, whose helper
// makes the layout and then starts each of the session's sandboxes (see
// initproc's zygote.go). A sandbox costs a clone of the zygote's
// namespaces and one helper start instead of a bwrap and a layout.
type zygote struct {
	layout string
	cmd    *exec.Cmd
	ctl    *net.UnixConn // SOCK_SEQPACKET: a request and its reply per message
	mu     sync.Mutex    // one spawn at a time, so replies match requests
	exited chan struct{} // closed once bwrap has been waited for
	// lastWords is the zygote's last line on stderr (why it failed),
	// set before exited is closed.
	lastWords string
}

// spawnTimeout bounds one spawn: the zygote answers in about a
// millisecond; one that does not within this is stuck and is stopped.
const spawnTimeout = 30 * time.Second

// errZygoteGone: the zygote exited (a failed layout, or killed), and a
// new one may do better.
var errZygoteGone = errors.New("the session's sandbox template is gone")

// startZygote starts bwrap with args (its own arguments) and the zygote
// config; the zygote makes its layout before it reads the first request,
// so a spawn waits for it.
func startZygote(bwrapPath string, args []string, helper string, cfg initproc.Config, layout string, log *slog.Logger) (*zygote, error) {
	fds, err := seqpacketPair()
	if err != nil {
		return nil, err
	}
	ours, theirs := fds[0], fds[1]
	defer theirs.Close()
	cfg.Zygote.ControlFD = 3
	enc, err := cfg.Encode()
	if err != nil {
		ours.Close()
		return nil, err
	}
	argv := append(append(args[:len(args):len(args)], "--"), helperPath(helper), initproc.Entry, enc)
	cmd := exec.Command(bwrapPath, argv...)
	// The zygote serves one request at a time; one processor will do.
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = zygoteAttr()
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
	z := &zygote{layout: layout, cmd: cmd, ctl: c.(*net.UnixConn), exited: make(chan struct{})}
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
		z.lastWords = last
		close(z.exited)
	}()
	return z, nil
}

// gone reports whether bwrap has exited.
func (z *zygote) gone() bool {
	select {
	case <-z.exited:
		return true
	default:
		return false
	}
}

// spawn asks the zygote for one sandbox and returns a pidfd of its
// first process.
func (z *zygote) spawn(req initproc.SpawnRequest, f launch.SpawnFiles) (int, error) {
	files := []*os.File{f.Stdin, f.Stdout, f.Stderr, f.Request, f.Status}
	if f.Cgroup != nil {
		req.Cgroup = true
		files = append(files, f.Cgroup)
	}
	msg, err := initproc.EncodeSpawn(req)
	if err != nil {
		return -1, err
	}
	fds := make([]int, len(files))
	for i, file := range files {
		fds[i] = int(file.Fd())
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.gone() {
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
func (z *zygote) failed(err error) error {
	if err == nil || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		select {
		case <-z.exited:
		case <-time.After(time.Second):
		}
	}
	z.close()
	<-z.exited
	if err == nil {
		err = errors.New("it hung up")
	}
	return fmt.Errorf("%w: %w", z.goneErr(), err)
}

func (z *zygote) goneErr() error {
	if z.lastWords != "" {
		return fmt.Errorf("%w (%s)", errZygoteGone, z.lastWords)
	}
	return errZygoteGone
}

// close stops the zygote: closing its socket ends it, and SIGKILL to
// bwrap ends it for sure, with every run still in it.
func (z *zygote) close() {
	z.ctl.Close()
	_ = z.cmd.Process.Kill()
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// spawner is one sandbox's request to a zygote, as launch asks for it.
type spawner struct {
	z   *zygote
	req initproc.SpawnRequest
}

func (s spawner) Spawn(f launch.SpawnFiles) (int, error) { return s.z.spawn(s.req, f) }
