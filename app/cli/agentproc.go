package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// shells are skipped on the way up to the agent: an agent may start its
// hooks, or its MCP servers, through one.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "mksh": true, "busybox": true, "env": true}

// agentProcess names the agent process that started this one: the
// nearest ancestor that is not a shell, by pid and start time (a pid
// alone can be reused). An agent that gives neither its MCP servers nor
// its hooks a run id they share (Gemini CLI) still starts both, so both
// name the same process. It is "" where /proc is missing (macOS).
func agentProcess() string {
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			return ""
		}
		comm, ppid, start, err := procStat(pid)
		if err != nil {
			return ""
		}
		if !shells[comm] {
			return "proc-" + strconv.Itoa(pid) + "-" + strconv.FormatUint(start, 10)
		}
		pid = ppid
	}
	return ""
}

// procStat reads a process's name, parent and start time (in clock ticks
// since boot) from /proc/PID/stat.
func procStat(pid int) (comm string, ppid int, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, err
	}
	return parseStat(pid, string(b))
}

func parseStat(pid int, s string) (comm string, ppid int, start uint64, err error) {
	// The name is in parentheses and may hold anything, parentheses too.
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, 0, fmt.Errorf("/proc/%d/stat: no name", pid)
	}
	// After the name: state ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice
	// num_threads itrealvalue starttime.
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return "", 0, 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	ppid, err = strconv.Atoi(f[1])
	if err == nil {
		start, err = strconv.ParseUint(f[19], 10, 64)
	}
	if err != nil {
		return "", 0, 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return s[open+1 : end], ppid, start, nil
}
