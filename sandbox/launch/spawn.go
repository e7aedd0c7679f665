package launch

import (
	"errors"
	"fmt"
	"os"
)

// A Spawner starts a run's first process where the daemon cannot fork it
// itself: a session's zygote, inside its sandbox (see bwrap). The process
// takes the call's Request on the request descriptor and reports the
// run's Status on the status one; Spawn gets the descriptors and returns
// a pidfd of it.
type Spawner interface {
	Spawn(f SpawnFiles) (pidfd int, err error)
}

// SpawnFiles are a spawned run's descriptors, in the order the zygote
// passes them on (initproc.SpawnRequest): Cgroup, when not nil, is the
// run's cgroup.procs, which its first process joins before anything
// else starts.
type SpawnFiles struct {
	Stdin, Stdout, Stderr, Request, Status *os.File
	Cgroup                                 *os.File
}

// SpawnedInitTasks is room in a spawned run's pids cgroup for its first
// process, which joins the cgroup first and stays as the run's PID 1: a
// Go program with one processor, which runs four threads (five in a run
// that writes the workspace itself: the creation guard's), and room for
// threads the runtime adds while they wait. The target's processes get
// the run's limit on top. (A Landlock run's supervisor leaves the cgroup
// once its target is born there, and hands its room to the run.)
const SpawnedInitTasks = 8

// StartSpawned is Start for a run sp starts: c must be Deferred and
// Supervise (a status comes back), and its Config says nothing more,
// since the spawner configures the run's first process.
func StartSpawned(c Command, sp Spawner) (*Pending, error) {
	if !c.Deferred || !c.Config.Supervise {
		if c.Cleanup != nil {
			c.Cleanup()
		}
		return nil, errors.New("a spawned run waits for its call and reports its status")
	}
	return start(c, sp)
}

// spawn has sp start the run with its descriptors and adopts the
// process it hands back; a root run's cgroup.procs goes with them.
func (p *Pending) spawn(sp Spawner, files SpawnFiles) error {
	if p.group != nil {
		procs, err := os.OpenFile(p.group.ProcsFile(), os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("open the run's cgroup: %w", err)
		}
		defer procs.Close()
		files.Cgroup = procs
	}
	p.spawned = true
	pidfd, err := sp.Spawn(files)
	if err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	proc, err := adoptPidfd(pidfd)
	if err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	p.proc = proc
	return nil
}
