package proctree

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// List reads the process table from /proc.
func List() ([]Proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		p, ok := parseStat(pid, b)
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// Stat reads one process's entry from /proc/PID/stat.
func Stat(pid int) (Proc, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, err
	}
	p, ok := parseStat(pid, b)
	if !ok || p.Comm == "" && p.Start == 0 {
		return Proc{}, fmt.Errorf("/proc/%d/stat: cannot parse it", pid)
	}
	return p, nil
}

// parseStat reads state, ppid, name and start time from /proc/PID/stat.
// The name may hold spaces and parentheses, so it runs from the first
// '(' to the last ')', and the fields start after it. A line cut short
// before the start time still gives state and ppid.
func parseStat(pid int, b []byte) (Proc, bool) {
	open, i := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || i < open || i+2 >= len(b) {
		return Proc{}, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 2 {
		return Proc{}, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return Proc{}, false
	}
	p := Proc{PID: pid, PPID: ppid, Zombie: f[0][0] == 'Z' || f[0][0] == 'X'}
	// After the name: state ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice
	// num_threads itrealvalue starttime.
	if len(f) >= 20 {
		if start, err := strconv.ParseUint(string(f[19]), 10, 64); err == nil {
			p.Comm, p.Start = string(b[open+1:i]), start
		}
	}
	return p, true
}

// Cmdline returns a process's argv, or nil if it is gone.
func Cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	parts := bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

// UserTasks counts the tasks (threads included, as RLIMIT_NPROC does)
// owned by uid.
func UserTasks(uid int) int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	n := 0
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		st, err := os.Stat("/proc/" + name)
		if err != nil {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != uid {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
			if f := bytes.Fields(b[i+2:]); len(f) > 17 {
				if t, err := strconv.Atoi(string(f[17])); err == nil {
					n += t
					continue
				}
			}
		}
		n++
	}
	return n
}

// EnvironHas reports whether a process's environment holds entry
// (KEY=VALUE). Only the process's owner (or root) can read it.
func EnvironHas(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if string(e) == entry {
			return true
		}
	}
	return false
}

// descendantsByChildren walks the kernel's per-thread children lists
// (/proc/PID/task/TID/children), which costs a few reads for a small
// tree instead of a scan of every process. ok is false when the kernel
// lacks the lists (CONFIG_PROC_CHILDREN), so the caller falls back.
func descendantsByChildren(root int) (pids []int, ok bool) {
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children"); err != nil {
		return nil, false
	}
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue // exited meanwhile
		}
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, f := range bytes.Fields(b) {
				c, err := strconv.Atoi(string(f))
				if err != nil || seen[c] {
					continue
				}
				seen[c] = true
				queue = append(queue, c)
				if !isZombie(c) {
					pids = append(pids, c)
				}
			}
		}
	}
	return pids, true
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // gone
	}
	p, ok := parseStat(pid, b)
	return ok && p.Zombie
}
