package launch

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strconv"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// errDirectConfig refuses a Direct Command whose first stage would have
// had something to confine: skipping the helper would skip that too.
var errDirectConfig = errors.New("a program started directly cannot be confined by the helper")

// onlyProgram reports whether cfg asks the helper for nothing but to
// start a program (and join a cgroup, which Start does itself).
func onlyProgram(cfg initproc.Config) bool {
	cfg.Path, cfg.Argv, cfg.CgroupProcs = "", nil, ""
	return reflect.DeepEqual(cfg, initproc.Config{})
}

// startCmd starts the run's first process. A Direct Command starts its
// program itself, which saves a helper process per run: a Go runtime's
// start, about 1.5 ms of CPU, which back-to-back calls feel because the
// next sandbox is built while the current one runs (0.7 ms of each call
// in BenchmarkTrueBwrapBackToBack). A root run's program is created
// inside its cgroup on cgroup v2; on v1 it gets the cgroup's procs file
// open, for the helper it runs to join as it starts (see
// initproc.CgroupFDEnv). Where neither works, the helper starts it
// and joins as before.
func (p *Pending) startCmd(helper *exec.Cmd, direct *exec.Cmd) error {
	if direct != nil {
		direct.Stdin, direct.Stdout, direct.Stderr = helper.Stdin, helper.Stdout, helper.Stderr
		err := p.startDirect(direct)
		if err == nil {
			p.proc = child{direct}
			return nil
		}
		if p.group == nil {
			return err
		}
		p.log.Debug("sandbox: cannot start the run inside its cgroup; the helper joins it instead", "err", err)
	}
	if err := helper.Start(); err != nil {
		return err
	}
	p.proc = child{helper}
	return nil
}

func (p *Pending) startDirect(cmd *exec.Cmd) error {
	joinFD := 0
	switch {
	case p.group == nil:
	case p.group.Unified:
		release, err := intoCgroup(cmd.SysProcAttr, p.group.Dir)
		if err != nil {
			return err
		}
		defer release()
	default:
		procs, err := os.OpenFile(p.group.ProcsFile(), os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer procs.Close()
		if !p.c.Deferred {
			return errors.New("a program started directly joins its cgroup v1 through its request")
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles[:len(cmd.ExtraFiles):len(cmd.ExtraFiles)], procs)
		joinFD = 2 + len(cmd.ExtraFiles) // ExtraFiles start at 3
		// The helper joins as it starts, off the call's path.
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], initproc.CgroupFDEnv+"="+strconv.Itoa(joinFD))
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Only now: a helper started instead has no such descriptor.
	p.cgroupFD = joinFD
	return nil
}
