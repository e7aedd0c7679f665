package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stager is a backend that can stage runs (see Spec.Stage): bwrap, whose
// helper mounts the overlays inside the run's own mount namespace.
// Landlock and the container run directly; the caller checks what they
// changed afterwards instead.
type Stager interface {
	CanStage() bool
}

// ErrCannotStage refuses a staged run the backend cannot make (no stage
// root, a backend without overlays).
var ErrCannotStage = errors.New("this sandbox cannot stage the run")

// StageMountPoint is where a staging backend shows the session's stage
// root to its helper; each run covers it before exec, so it never reaches
// an upper layer but through its overlay.
const StageMountPoint = "/.gatehouse-stage"

// LowerMountPoint holds, where a backend's runs are in a user namespace
// less privileged than their layout's (bwrap's zygote runs, a nesting
// container), a bind of each workspace with nothing mounted below it:
// an overlay refuses a layer with mounts below it that the run cannot
// unmount (the layout's covers), so a staged run's overlay takes this
// one. Every run covers it, with the stage root, before exec.
const LowerMountPoint = "/.gatehouse-lower"

// LowerOf is workspace i's bind under LowerMountPoint.
func LowerOf(i int) string { return LowerMountPoint + "/" + strconv.Itoa(i) }

// prepareStage checks a staged run: a stage root, a plain run directory,
// and pass-through directories that exist in a workspace.
func prepareStage(ss SessionSpec, st Stage) (Stage, error) {
	if ss.StageRoot == "" {
		return st, specErr("stage", st.Dir, ErrCannotStage)
	}
	if st.Dir == "" || strings.ContainsAny(st.Dir, "/\\\x00") || st.Dir == "." || st.Dir == ".." {
		return st, specErr("stage.dir", st.Dir, ErrBadSpec)
	}
	out := Stage{Dir: st.Dir}
	for i, p := range st.PassThrough {
		if !filepath.IsAbs(p) || hasNUL(p) {
			return st, specErr(indexed("stage.pass_through", i), p, ErrBadSpec)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // gone since it was chosen: nothing to pass through
		}
		inside := false
		for _, w := range ss.Workspaces {
			inside = inside || (real != w && WithinClean(real, w))
		}
		if fi, err := os.Lstat(real); err != nil || !fi.IsDir() || !inside {
			return st, specErr(indexed("stage.pass_through", i), p, ErrOutsideWorkspace)
		}
		out.PassThrough = append(out.PassThrough, real)
	}
	return out, nil
}

// stagingFailedPrefix starts what the helper prints when it could not
// mount a staged run's overlays (and so never ran the command), followed
// by the run's nonce in brackets.
const stagingFailedPrefix = "gatehouse sandbox: staging failed"

// NewStageNonce is a fresh initproc.Request.StageNonce.
func NewStageNonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// StagingFailed reports whether a staged run ended before its command
// started because its overlays could not be mounted: the helper said so
// with the nonce only it knew. A backend that stages turns this into
// ErrCannotStage, and the caller may run the command again unstaged; a
// command that prints the same line gets its result like any other.
func StagingFailed(r Result, nonce string) bool {
	return r.ExitCode == 125 && nonce != "" && bytes.HasPrefix(r.Stderr, []byte(stagingFailedPrefix+" ["+nonce+"]"))
}
