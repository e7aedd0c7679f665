package initproc

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"golang.org/x/sys/unix"
)

// A Landlock session's zygote starts each of its runs' supervisors
// (superviseForked) on the daemon's request, under the rules of the
// session's layout, which it was started with, and the run's own home
// and temporary directory. It is their subreaper too: a supervisor is
// the subreaper of its run, but one that dies (its run may signal the
// thread that forked it, for a moment) leaves its run's processes to the
// zygote, which kills whatever it did not start. It is never confined
// itself, so no run can signal or trace it, and it runs nothing of the
// agent's.

// landlockZygote serves spawn requests until the daemon closes its
// socket, then kills whatever it still has below it.
func landlockZygote(cfg Config) int {
	// The supervisors get SIGTERM when the thread that started them
	// exits (Pdeathsig): the first thread, which starts them all, exits
	// only with the process.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: subreaper: %v\n", err)
		return ExitSetupFailed
	}
	if err := hideFromRuns(); err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return ExitSetupFailed
	}
	z := &landlockSpawner{cfg: cfg, live: map[int]bool{}}
	go z.reap()
	err := serveSpawns(cfg.Zygote.ControlFD, z.spawn)
	_ = proctree.KillDescendants(os.Getpid())
	if err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return ExitSetupFailed
	}
	return 0
}

// landlockSpawner starts supervisors and keeps track of them.
type landlockSpawner struct {
	cfg Config
	mu  sync.Mutex
	// live are the supervisors started and not yet reaped: any other
	// child was left by one that died.
	live map[int]bool
}

// spawn starts one run's supervisor with the request's descriptors
// (stdin, stdout, stderr, request, status, and the run's cgroup.procs)
// and returns its pidfd.
func (z *landlockSpawner) spawn(msg []byte, fds []int) (int, error) {
	req, err := DecodeLandlockSpawn(msg)
	if err != nil {
		return -1, err
	}
	if err := spawnFDs(fds, req.Cgroup); err != nil {
		return -1, err
	}
	rules := *z.cfg.Landlock
	rules.RWDirs = append(rules.RWDirs[:len(rules.RWDirs):len(rules.RWDirs)], req.Home, req.Tmp)
	sup := Config{Supervise: true, ForkTarget: true, ZygotePID: os.Getpid(), Grace: z.cfg.Grace, Landlock: &rules, RequestFD: 3, StatusFD: 4}
	if req.Cgroup {
		sup.CgroupFD = SpawnFDs
	}
	enc, err := sup.Encode()
	if err != nil {
		return -1, err
	}
	files := make([]uintptr, len(fds))
	for i, fd := range fds {
		files[i] = uintptr(fd)
	}
	pidfd := -1
	z.mu.Lock()
	defer z.mu.Unlock()
	pid, err := syscall.ForkExec("/proc/self/exe", []string{os.Args[0], Entry, enc}, &syscall.ProcAttr{
		Env:   []string{"GOMAXPROCS=1"},
		Dir:   "/",
		Files: files,
		// A session of its own, as a supervisor the daemon started had;
		// and when the zygote dies (with the daemon), its runs end.
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM, PidFD: &pidfd},
	})
	if err != nil {
		return -1, fmt.Errorf("start the run's supervisor: %w", err)
	}
	z.live[pid] = true
	return pidfd, nil
}

// reap reaps the zygote's children as they exit; once a supervisor is
// gone, what its run left with the zygote is killed.
func (z *landlockSpawner) reap() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGCHLD)
	for range sigs {
		supervisorGone := false
		for {
			pid, _, err := reapOne(syscall.WNOHANG)
			if pid <= 0 || err != nil {
				break
			}
			z.mu.Lock()
			if z.live[pid] {
				delete(z.live, pid)
				supervisorGone = true
			}
			z.mu.Unlock()
		}
		if supervisorGone {
			z.killStrays()
		}
	}
}

// killStrays kills every child of the zygote that is not a live
// supervisor, with all below it: orphans of one that died.
func (z *landlockSpawner) killStrays() {
	for _, pid := range children() {
		z.mu.Lock()
		ours := z.live[pid]
		z.mu.Unlock()
		if !ours {
			_ = proctree.KillDescendants(pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// children are this process's children, from each thread's list.
func children() []int {
	self := "/proc/self/task/"
	tasks, err := os.ReadDir(self)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(self + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
