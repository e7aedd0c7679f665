package container

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// A session with a stage root runs every call in namespaces of its own
// inside the container (initproc's nest_linux.go): a command that
// changes files runs staged, against an overlay whose upper layer is on
// the host, and one that only reads runs with the workspaces read-only.
// Neither can create a protected name in the workspace. A call that is
// neither (the pipeline's fallback when staging failed) runs with the
// missing names refused by its helper (guardMissing), as in a session
// without a stage root.

// errNestFailed: the helper could not make the run's namespaces, and the
// target never ran.
var errNestFailed = errors.New("the container cannot give runs namespaces of their own")

// cannotStage refuses p's staging: the pipeline runs it again unstaged.
func cannotStage(p *sandbox.Prepared) error {
	return &sandbox.SpecError{Field: "stage", Value: p.Stage.Dir, Err: sandbox.ErrCannotStage}
}

// fallBack restarts the container without the runs' namespaces, for the
// rest of the session.
func (s *session) fallBack(ctx context.Context, why string) error {
	s.b.opts.Logger.Warn("container sandbox: starting a fresh container whose runs share its namespaces", "container", s.name, "why", why)
	s.unnested = true
	return s.restart(ctx)
}

// noNesting remembers, for the sessions still to come, that the runtime
// refused a run's namespaces: they start without at once rather than
// each find out at its first call.
func (s *session) noNesting() { s.b.nestRefused.Store(true) }

// wantsNest: a session with a stage root the container can mount and a
// helper to take its calls, unless it already fell back.
// Docker's default seccomp profile refuses a new user namespace to a
// process without CAP_SYS_ADMIN, so only podman's containers nest.
func (s *session) wantsNest(runDir string) bool {
	return s.ss.StageRoot != "" && runDir != "" && !s.unnested &&
		s.b.isPodman() && !s.b.nestRefused.Load()
}

// nestArgs are the container's mounts for nesting runs: the stage root
// and the uncovered workspaces, which every run covers in its own
// namespace before exec (nestMounts).
func nestArgs(ss sandbox.SessionSpec) []string {
	a := []string{"--mount", bindMount(ss.StageRoot, sandbox.StageMountPoint)}
	for i, w := range ss.Workspaces {
		a = append(a, "--mount", bindMount(w, sandbox.LowerOf(i)))
	}
	return a
}

// nestMounts is what the run's helper mounts in its own namespaces: the
// stage root and the uncovered workspaces covered, always; for a staged
// run, an overlay on each workspace, then what the overlay would
// otherwise uncover: the protected paths read-only, submodules' git dirs
// writable again, the secrets and the session's hidden paths behind empty
// ones; for a run that only reads, its workspaces read-only (the
// container's own covers stay beneath).
func nestMounts(p *sandbox.Prepared, req *initproc.Request) error {
	req.HideDirs = append(req.HideDirs, sandbox.StageMountPoint, sandbox.LowerMountPoint)
	if p.Stage == nil {
		if p.Spec.ReadOnlyWorkspaces {
			req.ReadOnly = append(req.ReadOnly, p.Workspaces...)
		}
		return nil
	}
	inside := func(hp string) string {
		rel, _ := filepath.Rel(p.StageRoot, hp)
		return filepath.Join(sandbox.StageMountPoint, rel)
	}
	req.StageNonce = sandbox.NewStageNonce()
	for i, w := range p.Workspaces {
		req.Stage = append(req.Stage, initproc.StageMount{Target: w, Lower: sandbox.LowerOf(i),
			Upper: inside(sandbox.StageUpper(p.StageRoot, p.Stage.Dir, i)), Work: inside(sandbox.StageWork(p.StageRoot, p.Stage.Dir, i))})
		ws, err := protect.Scan(w, p.Expose)
		if err != nil {
			return fmt.Errorf("cannot tell what to protect in %s, so nothing runs: %w", w, err)
		}
		// A name that does not exist needs nothing: created in the upper
		// layer, it is never applied (the pipeline keeps it out).
		req.Protect = append(req.Protect, ws.Protected.Existing...)
		req.Writable = append(req.Writable, ws.Protected.Writable...)
		req.Pin = append(req.Pin, ws.HiddenParents()...)
		req.HideFiles = append(req.HideFiles, ws.Secrets.Files...)
		req.HideDirs = append(req.HideDirs, ws.Secrets.Dirs...)
		protect.SettleIndexSoon(w, ws.Secrets.Files)
		files, dirs := p.HiddenIn(w)
		req.HideFiles, req.HideDirs = append(req.HideFiles, files...), append(req.HideDirs, dirs...)
	}
	req.PassThrough = append(req.PassThrough, p.Stage.PassThrough...)
	return nil
}
