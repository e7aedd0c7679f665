//go:build !linux

package proctree

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
)

// List reads the process table with ps (no /proc outside Linux).
func List() ([]Proc, error) {
	out, err := exec.Command("ps", "-axo", "pid=,ppid=,stat=").Output()
	if err != nil {
		return nil, err
	}
	var procs []Proc
	for _, line := range bytes.Split(out, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) < 3 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		ppid, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		procs = append(procs, Proc{PID: pid, PPID: ppid, Zombie: strings.HasPrefix(f[2], "Z")})
	}
	return procs, nil
}

// Stat is not available without /proc.
func Stat(pid int) (Proc, error) {
	return Proc{}, errors.New("no /proc here")
}

// Cmdline returns a process's argv as ps shows it, or nil if it is gone.
func Cmdline(pid int) []string {
	out, err := exec.Command("ps", "-o", "command=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// EnvironHas cannot read other processes' environments outside Linux.
func EnvironHas(pid int, entry string) bool { return false }

// UserTasks counts the processes owned by uid (threads are not visible
// through ps here, so this undercounts; it only widens RLIMIT_NPROC).
func UserTasks(uid int) int {
	out, err := exec.Command("ps", "-U", strconv.Itoa(uid), "-o", "pid=").Output()
	if err != nil {
		return 0
	}
	return bytes.Count(out, []byte("\n"))
}

func descendantsByChildren(root int) ([]int, bool) { return nil, false }
