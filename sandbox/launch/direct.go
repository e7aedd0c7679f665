package launch

import (
	"errors"
	"os/exec"
	"reflect"

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
// inside its cgroup. Where the kernel cannot do that (cgroup v1, or Linux
// before 5.7), the helper starts it and joins the cgroup as before.
func (p *Pending) startCmd(helper *exec.Cmd, direct *exec.Cmd) error {
	if direct != nil && (p.group == nil || p.group.Unified) {
		direct.Stdin, direct.Stdout, direct.Stderr = helper.Stdin, helper.Stdout, helper.Stderr
		err := p.startDirect(direct)
		if err == nil {
			p.cmd = direct
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
	p.cmd = helper
	return nil
}

func (p *Pending) startDirect(cmd *exec.Cmd) error {
	if p.group != nil {
		release, err := intoCgroup(cmd.SysProcAttr, p.group.Dir)
		if err != nil {
			return err
		}
		defer release()
	}
	return cmd.Start()
}
