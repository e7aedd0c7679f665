// Package proctree finds and signals every descendant of a process, so
// one kill reaches grandchildren that left the process group with setsid.
package proctree

import (
	"errors"
	"syscall"
	"time"
)

// Proc is one process as seen in the process table.
type Proc struct {
	PID, PPID int
	Zombie    bool
	// Comm is the process's name and Start its start time in clock ticks
	// since boot: with the pid, they name it even after the pid is reused.
	// Only Stat and List on Linux fill them.
	Comm  string
	Start uint64
}

// Descendants returns the live (non-zombie) descendants of root.
func Descendants(root int) ([]int, error) {
	if pids, ok := descendantsByChildren(root); ok {
		return pids, nil
	}
	procs, err := List()
	if err != nil {
		return nil, err
	}
	return descendantsOf(root, procs), nil
}

func descendantsOf(root int, procs []Proc) []int {
	children := map[int][]Proc{}
	for _, p := range procs {
		children[p.PPID] = append(children[p.PPID], p)
	}
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c.PID] {
				continue
			}
			seen[c.PID] = true
			queue = append(queue, c.PID)
			if !c.Zombie {
				out = append(out, c.PID)
			}
		}
	}
	return out
}

// Signal sends sig to every live descendant of root, and to root itself
// when includeRoot is set. Processes that vanished meanwhile are ignored.
func Signal(root int, sig syscall.Signal, includeRoot bool) error {
	pids, err := Descendants(root)
	if err != nil {
		return err
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
	if includeRoot {
		_ = syscall.Kill(root, sig)
	}
	return nil
}

// ErrSurvivors means descendants were still alive after repeated SIGKILLs.
var ErrSurvivors = errors.New("processes survived SIGKILL")

// KillDescendants SIGKILLs root's descendants until none are left. It
// loops because a process may fork between the listing and the kill; a
// process with a pending SIGKILL cannot complete a fork, so the set
// shrinks. Root itself is left alive: while it (a subreaper or PID
// namespace init) lives, orphans stay in its tree and cannot escape.
func KillDescendants(root int) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids, err := Descendants(root)
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return ErrSurvivors
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
