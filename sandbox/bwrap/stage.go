package bwrap

import (
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// stageRequest asks the helper for the run's overlays (when it is staged)
// and, in every run of a session with a stage root, to detach the root.
func stageRequest(p *sandbox.Prepared, req *initproc.Request) {
	if p.StageRoot == "" {
		return
	}
	req.StageBind = sandbox.StageMountPoint
	if p.Stage == nil {
		return
	}
	req.StageNonce = sandbox.NewStageNonce()
	for i, w := range p.Workspaces {
		req.Stage = append(req.Stage, initproc.StageMount{
			Target: w,
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
