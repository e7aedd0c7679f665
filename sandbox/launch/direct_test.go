package launch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

func TestDirectRefusesWhatTheHelperWouldConfine(t *testing.T) {
	tests := []struct {
		name string
		cfg  initproc.Config
		ok   bool
	}{
		{"a program", initproc.Config{Path: "/bin/true", Argv: []string{"true"}}, true},
		{"a program and its cgroup", initproc.Config{Path: "/bin/true", Argv: []string{"true"}, CgroupProcs: "/x/cgroup.procs"}, true},
		{"Landlock rules", initproc.Config{Path: "/bin/true", Argv: []string{"true"}, Landlock: &initproc.Landlock{RODirs: []string{"/"}}}, false},
		{"rlimits", initproc.Config{Path: "/bin/true", Argv: []string{"true"}, Rlimits: []initproc.Rlimit{{Resource: 1}}}, false},
		{"dropping capabilities", initproc.Config{Path: "/bin/true", Argv: []string{"true"}, DropCaps: true}, false},
		{"supervising", initproc.Config{Path: "/bin/true", Argv: []string{"true"}, Supervise: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := onlyProgram(tt.cfg); got != tt.ok {
				t.Fatalf("onlyProgram = %v, want %v", got, tt.ok)
			}
			if tt.ok {
				return
			}
			_, err := Run(context.Background(), Command{Backend: "test", Helper: "/nonexistent", Config: tt.cfg, Direct: true, Dir: "/"})
			if !errors.Is(err, errDirectConfig) {
				t.Fatalf("Run = %v, want errDirectConfig", err)
			}
		})
	}
}

// TestDirectStartsTheProgramItself: no helper stands between the daemon
// and the program (the helper named here does not exist), and the run's
// streams and exit status come through. Without a process limit there is
// no cgroup; with one, the fork-bomb row of the doctor battery shows the
// bound holding whichever way the run joined it.
func TestDirectStartsTheProgramItself(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), Command{
		Backend: "test",
		Helper:  "/nonexistent/helper",
		Config:  initproc.Config{Path: "/bin/sh", Argv: []string{"sh", "-c", "echo $PPID; exit 3"}},
		Direct:  true,
		Dir:     "/",
		Stdout:  &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 {
		t.Fatalf("exit %d, want 3", res.ExitCode)
	}
	if got := strings.TrimSpace(out.String()); got != strconv.Itoa(os.Getpid()) {
		t.Fatalf("parent %s, want this process (%d)", got, os.Getpid())
	}
}
