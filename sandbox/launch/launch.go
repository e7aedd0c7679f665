// Package launch starts a sandboxed run through the initproc helper and
// owns it until it is over: output capture, wall-clock limit, and the
// kill of the whole tree (SIGTERM, grace, SIGKILL) on timeout or cancel.
// The bwrap, landlock and none backends share it.
package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/cgroup"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// Command is one run to launch.
type Command struct {
	Backend string
	// Helper is the binary that implements initproc.Entry.
	Helper string
	// Config is handed to the helper; Launch fills in cgroup and status.
	Config initproc.Config
	Env    []string
	Dir    string
	Limits sandbox.Limits
	Stdin  io.Reader
	Stdout io.Writer // live copies, optional
	Stderr io.Writer
	Logger *slog.Logger
}

// Run starts c and waits for it. Cancelling ctx, or the wall limit,
// kills the whole tree and returns a Result with Killed set.
func Run(ctx context.Context, c Command) (sandbox.Result, error) {
	res := sandbox.Result{Backend: c.Backend}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}

	// Root is exempt from RLIMIT_NPROC, so bound root's runs with a cgroup.
	var group *cgroup.Group
	if os.Geteuid() == 0 && c.Limits.Processes > 0 {
		g, err := cgroup.New("run-"+randomID(), c.Limits.Processes)
		if err != nil {
			log.Warn("sandbox: no pids cgroup; process limit for root is not enforced", "err", err)
		} else {
			group = g
			c.Config.CgroupProcs = g.ProcsFile()
			defer func() {
				_ = g.Kill()
				if err := g.Remove(); err != nil {
					log.Warn("sandbox: cgroup cleanup", "err", err)
				}
			}()
		}
	}

	var statusR, statusW *os.File
	if c.Config.Supervise {
		var err error
		statusR, statusW, err = os.Pipe()
		if err != nil {
			return res, fmt.Errorf("status pipe: %w", err)
		}
		defer statusR.Close()
		c.Config.StatusFD = 3
	}
	arg, err := c.Config.Encode()
	if err != nil {
		return res, err
	}

	limits := c.Limits
	stdout := sandbox.NewCapture(limits.OutputCap(), c.Stdout)
	stderr := sandbox.NewCapture(limits.OutputCap(), c.Stderr)
	cmd := exec.Command(c.Helper, initproc.Entry, arg)
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = c.Dir
	cmd.Stdin = c.Stdin
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = sysProcAttr()
	if statusW != nil {
		cmd.ExtraFiles = []*os.File{statusW}
	}
	// A process that escaped the kill could hold our pipes open forever;
	// stop waiting for them shortly after the helper is gone.
	cmd.WaitDelay = 2 * time.Second

	start := time.Now()
	if err := cmd.Start(); err != nil {
		if statusW != nil {
			statusW.Close()
		}
		return res, fmt.Errorf("start sandbox helper: %w", err)
	}
	if statusW != nil {
		statusW.Close()
	}
	var status *initproc.Status
	statusDone := make(chan struct{})
	go func() {
		defer close(statusDone)
		if statusR == nil {
			return
		}
		var s initproc.Status
		if json.NewDecoder(statusR).Decode(&s) == nil {
			status = &s
		}
	}()

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var wall <-chan time.Time
	if limits.Wall > 0 {
		t := time.NewTimer(limits.Wall)
		defer t.Stop()
		wall = t.C
	}
	var waitErr error
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		res.Killed, res.KillReason = true, sandbox.KillCanceled
		waitErr = terminate(cmd.Process.Pid, group, limits.GraceOrDefault(), done)
	case <-wall:
		res.Killed, res.KillReason = true, sandbox.KillTimeout
		waitErr = terminate(cmd.Process.Pid, group, limits.GraceOrDefault(), done)
	}
	res.Duration = time.Since(start)
	if group != nil {
		_ = group.Kill()
	}
	<-statusDone

	res.Stdout, res.StdoutTruncated = stdout.Bytes(), stdout.Truncated()
	res.Stderr, res.StderrTruncated = stderr.Bytes(), stderr.Truncated()
	fillExit(&res, cmd.ProcessState, status)
	if waitErr != nil && cmd.ProcessState == nil {
		return res, fmt.Errorf("wait for sandboxed process: %w", waitErr)
	}
	if status != nil && status.Error != "" && status.Exit == initproc.ExitSetupFailed {
		return res, fmt.Errorf("sandbox setup failed: %s", status.Error)
	}
	return res, nil
}

// terminate asks the tree to stop, waits the grace period, then kills
// every descendant and finally the root. The root dies last: while it
// lives (subreaper or PID-namespace parent) no descendant can escape.
func terminate(root int, group *cgroup.Group, grace time.Duration, done <-chan error) error {
	_ = proctree.Signal(root, syscall.SIGTERM, false)
	if group != nil {
		for _, p := range group.PIDs() {
			if p != root {
				_ = syscall.Kill(p, syscall.SIGTERM)
			}
		}
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	_ = proctree.KillDescendants(root)
	if group != nil {
		_ = group.Kill()
	}
	_ = syscall.Kill(root, syscall.SIGKILL)
	return <-done
}

func fillExit(res *sandbox.Result, ps *os.ProcessState, st *initproc.Status) {
	if ps == nil {
		res.ExitCode = -1
		return
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	switch {
	case st != nil && st.Signal != 0:
		res.ExitCode, res.Signal = -1, signalName(syscall.Signal(st.Signal))
	case st != nil:
		res.ExitCode = st.Exit
	case ws.Signaled():
		res.ExitCode, res.Signal = -1, signalName(ws.Signal())
	default:
		res.ExitCode = ws.ExitStatus()
	}
	switch res.Signal {
	case signalName(syscall.SIGXCPU):
		res.Killed, res.KillReason = true, sandbox.KillCPU
		res.Violations = append(res.Violations, sandbox.Violation{Kind: "limit", Detail: "CPU time limit reached"})
	case signalName(syscall.SIGXFSZ):
		res.Violations = append(res.Violations, sandbox.Violation{Kind: "limit", Detail: "file size limit reached"})
	}
}

func signalName(s syscall.Signal) string {
	if n := s.String(); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ErrNoHelper means the helper binary could not be found.
var ErrNoHelper = errors.New("sandbox helper binary not found")

// HelperName is the stand-alone helper binary looked for next to the
// running one (see sandbox/cmd/gatehouse-sandbox-init).
const HelperName = "gatehouse-sandbox-init"

// DefaultHelper is the stand-alone helper installed next to the running
// binary when there is a trustworthy one, else the running binary itself,
// which implements initproc.Entry too.
func DefaultHelper() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoHelper, err)
	}
	if sib := filepath.Join(filepath.Dir(p), HelperName); trustedSibling(sib, p) {
		return sib, nil
	}
	return p, nil
}

// trustedSibling accepts the helper only if it is a regular executable file
// owned like the running binary and writable by nobody else, so a planted
// file cannot stand in for the confinement step.
func trustedSibling(path, self string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	me, err := os.Stat(self)
	if err != nil {
		return false
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := me.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && a.Uid == b.Uid
}
