package initproc

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// netPool keeps a zygote's network namespaces for its runs, one run at a
// time each. Making a network namespace and dismantling it cost the
// machine about 1.6 ms of CPU per run, the largest part of a sandbox's
// start; a run given one from the pool pays nothing of that.
//
// What a pooled namespace can carry from one run of the session to its
// next: only what the kernel still holds after every process of the
// earlier run is gone, which is sockets closing (TIME_WAIT entries of its
// loopback connections, listed in /proc/net/tcp). The namespace belongs
// to the zygote's user namespace, so a run holds no capability over it
// and can change none of its routes, rules, sysctls or interfaces. A
// namespace goes back to the pool only once its run's first process has
// been reaped, and so every process of the run (its PID namespace dies
// with it).
type netPool struct {
	mu    sync.Mutex
	free  []*os.File       // namespaces no run uses
	inUse map[int]*os.File // by the pid of the run's first process
	// spawns come to the one thread that enters pooled namespaces; it
	// can never return to the zygote's own (the host's, which no
	// capability of the zygote reaches).
	spawns chan netSpawn
}

// maxFreeNets bounds the namespaces kept unused: a session keeps two
// sandboxes ready and an agent rarely runs more than a few commands at
// once.
const maxFreeNets = 4

type netSpawn struct {
	ns   *os.File
	run  func() (int, error)
	done chan netSpawnResult
}

type netSpawnResult struct {
	pid int
	err error
}

func newNetPool() *netPool {
	p := &netPool{inUse: map[int]*os.File{}, spawns: make(chan netSpawn)}
	go p.spawner()
	return p
}

// spawn runs start, which forks a run's first process, on a thread in a
// network namespace from the pool, and records that namespace as the
// run's until reap says it is gone.
func (p *netPool) spawn(start func() (int, error)) (int, error) {
	ns, err := p.take()
	if err != nil {
		return -1, err
	}
	done := make(chan netSpawnResult, 1)
	// Held until the run is recorded: the reaper, which may hear of its
	// end first, waits.
	p.mu.Lock()
	defer p.mu.Unlock()
	p.spawns <- netSpawn{ns: ns, run: start, done: done}
	r := <-done
	if r.err != nil {
		p.putLocked(ns)
		return -1, r.err
	}
	p.inUse[r.pid] = ns
	return r.pid, nil
}

// reaped gives back the namespace of the run whose first process pid was.
func (p *netPool) reaped(pid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ns, ok := p.inUse[pid]; ok {
		delete(p.inUse, pid)
		p.putLocked(ns)
	}
}

func (p *netPool) putLocked(ns *os.File) {
	if len(p.free) >= maxFreeNets {
		ns.Close()
		return
	}
	p.free = append(p.free, ns)
}

func (p *netPool) take() (*os.File, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		ns := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return ns, nil
	}
	p.mu.Unlock()
	return newNetNS()
}

// spawner is the thread runs in pooled namespaces are forked from: a
// child takes its namespaces from the thread that forks it.
func (p *netPool) spawner() {
	runtime.LockOSThread() // for good: this thread leaves the zygote's namespace
	for s := range p.spawns {
		var r netSpawnResult
		if err := unix.Setns(int(s.ns.Fd()), unix.CLONE_NEWNET); err != nil {
			r.err = fmt.Errorf("enter the run's network namespace: %w", err)
		} else {
			r.pid, r.err = s.run()
		}
		s.done <- r
	}
}

// newNetNS makes a network namespace with its loopback up, on a thread
// of its own that then ends: it cannot come back to the zygote's.
func newNetNS() (*os.File, error) {
	type made struct {
		f   *os.File
		err error
	}
	ch := make(chan made, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- made{err: fmt.Errorf("make a network namespace: %w", err)}
			return
		}
		if err := loopbackUp(); err != nil {
			ch <- made{err: err}
			return
		}
		fd, err := unix.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			ch <- made{err: fmt.Errorf("hold the network namespace: %w", err)}
			return
		}
		ch <- made{f: os.NewFile(uintptr(fd), "netns")}
	}()
	m := <-ch
	return m.f, m.err
}

// forkInNet forks with attr from the pool's thread (own network) or from
// the calling one (the host's).
func forkInNet(pool *netPool, own bool, argv0 string, argv []string, attr *syscall.ProcAttr) (int, error) {
	start := func() (int, error) { return syscall.ForkExec(argv0, argv, attr) }
	if !own {
		return start()
	}
	return pool.spawn(start)
}
