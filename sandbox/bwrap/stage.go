package bwrap

import (
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// stageRequest asks the helper for the run's overlays (when it is
// staged) and, in every run of a session with a stage root, to cover the
// root and the workspaces' lower binds: the zygote mounted them, and a
// run's less privileged user namespace cannot unmount them.
func stageRequest(p *sandbox.Prepared, req *initproc.Request) {
	if p.StageRoot == "" {
		return
	}
	req.HideDirs = append(req.HideDirs, sandbox.StageMountPoint, sandbox.LowerMountPoint)
	if p.Stage == nil {
		return
	}
	req.StageNonce = sandbox.NewStageNonce()
	for i, w := range p.Workspaces {
		req.Stage = append(req.Stage, initproc.StageMount{
			Target: w,
			Lower:  sandbox.LowerOf(i),
			Upper:  inside(sandbox.StageUpper(p.StageRoot, p.Stage.Dir, i), p.StageRoot),
			Work:   inside(sandbox.StageWork(p.StageRoot, p.Stage.Dir, i), p.StageRoot),
		})
	}
	req.PassThrough = append(req.PassThrough, p.Stage.PassThrough...)
}

// inside is host path hp (under root) as the helper sees it.
func inside(hp, root string) string {
	rel, _ := filepath.Rel(root, hp)
	return filepath.Join(sandbox.StageMountPoint, rel)
}
