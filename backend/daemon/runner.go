package daemon

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/config"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/tools"
)

// startRunner makes the call runner over the opened stores, with the
// faults tests of the real daemon ask for.
func (d *Daemon) startRunner(ctx context.Context) error {
	opts := d.opts
	d.runner = call.New(call.Deps{
		Sessions: d.sessions, Approvals: d.approvals, Policy: d.policy, Audit: auditSink{d},
		Sandbox: opts.Sandbox, Hidden: []string{opts.DataDir}, Logger: d.logger, Egress: egressDep(opts.Egress),
		Redact: d.redactor, EnvFor: d.secrets.EnvFor, Snapshots: d.snapshots, RunEnv: opts.RunEnv,
		ExposeSecrets: opts.ExposeSecrets, StageDir: d.stageDir(), KeepReadOnly: d.readOnlyKeeper(),
		Usage: d.usage.ForRun,
	})
	if err := d.runner.Register(tools.Builtin(tools.For(d.runner, d.redactor, d.logger))...); err != nil {
		return err
	}
	return d.injectFaults()
}

// injectFaults sets the faults named in the environment; only tests set
// them, and the log says so loudly.
func (d *Daemon) injectFaults() error {
	if tools := os.Getenv("GATEHOUSE_FAULT_PANIC_TOOL"); tools != "" {
		// Tests of the real daemon watch a panic become a tool error.
		for _, t := range strings.Split(tools, ",") {
			if err := d.runner.PanicIn(t); err != nil {
				return err
			}
			d.logger.Warn("fault injection: this tool panics on every call (GATEHOUSE_FAULT_PANIC_TOOL)", "tool", t)
		}
	}
	if v := os.Getenv("GATEHOUSE_FAULT_STALL_APPLY"); v != "" {
		// Tests kill the daemon in the middle of an apply.
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("GATEHOUSE_FAULT_STALL_APPLY must be a positive number of steps, not %q", v)
		}
		d.runner.StallApplyAfter(n)
		d.logger.Warn("fault injection: applies stall after this many steps (GATEHOUSE_FAULT_STALL_APPLY)", "steps", n)
	}
	return nil
}

// readOnlyKeeper writes "always" on a proposal card to the config file;
// without one (a daemon started with no config path) "always" is not
// offered.
func (d *Daemon) readOnlyKeeper() call.ReadOnlyKeeper {
	if d.opts.ConfigPath == "" {
		return nil
	}
	return config.ReadOnlyFile{Path: d.opts.ConfigPath}
}
