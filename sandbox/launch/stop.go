package launch

import (
	"os"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/cgroup"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// Discard stops a helper whose call never came.
func (p *Pending) Discard() {
	p.kill()
	go func() {
		<-p.done
		p.finish()
	}()
}

// kill ends the helper at once: nothing it runs has started yet, or the
// caller gave up on it.
func (p *Pending) kill() {
	if p.request != nil {
		p.request.Close() // a waiting helper exits on EOF
	}
	_ = proctree.KillDescendants(p.proc.pid())
	_ = p.proc.signal(syscall.SIGKILL)
	if p.group != nil {
		_ = p.group.Kill()
	}
	<-p.done
}

func (p *Pending) terminate(grace time.Duration) {
	terminate(p.proc, p.group, grace, p.done)
}

// finish releases what Start took, once.
func (p *Pending) finish() {
	p.finishOnce.Do(func() {
		for _, f := range []*os.File{p.stdin, p.stdout, p.stderr, p.statusR} {
			if f != nil {
				f.Close()
			}
		}
		if p.request != nil {
			p.request.Close()
		}
		p.removeGroup()
		if p.c.Cleanup != nil {
			p.c.Cleanup()
		}
	})
}

func (p *Pending) removeGroup() {
	if p.group == nil {
		return
	}
	_ = p.group.Kill()
	if err := p.group.Remove(); err != nil {
		p.log.Warn("sandbox: cgroup cleanup", "err", err)
	}
}

// terminate asks the tree to stop, waits the grace period, then kills
// every descendant and finally the root. The root dies last: while it
// lives (subreaper or PID-namespace parent) no descendant can escape.
func terminate(proc process, group *cgroup.Group, grace time.Duration, done <-chan struct{}) {
	root := proc.pid()
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
	case <-done:
		return
	case <-t.C:
	}
	_ = proctree.KillDescendants(root)
	if group != nil {
		_ = group.Kill()
	}
	_ = proc.signal(syscall.SIGKILL)
	<-done
}
