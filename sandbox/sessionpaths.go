package sandbox

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// prepareSessionPaths resolves what a session shows besides its
// workspaces: read-only toolchain dirs (ones gone since the daemon found
// them are dropped), the writable cache, and the git dirs of a workspace
// that is a linked worktree.
func prepareSessionPaths(in SessionSpec, out *SessionSpec, home string) error {
	out.ReadOnly = nil
	for _, r := range in.ReadOnly {
		if hasNUL(r) || !filepath.IsAbs(r) {
			return specErr("read_only", r, ErrBadSpec)
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			out.ReadOnly = append(out.ReadOnly, real)
		}
	}
	if in.Cache != "" {
		if hasNUL(in.Cache) || !filepath.IsAbs(in.Cache) {
			return specErr("cache", in.Cache, ErrBadSpec)
		}
		real, err := filepath.EvalSymlinks(in.Cache)
		if err != nil {
			return specErr("cache", in.Cache, errors.Join(ErrBadSpec, err))
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() || IsSystemPath(real) {
			return specErr("cache", in.Cache, ErrUnsafeWorkspace)
		}
		out.Cache = real
	}
	out.GitDirs = nil
	for _, w := range out.Workspaces {
		l, err := protect.FindLinked(w)
		if err != nil {
			continue // not a linked worktree, or not one we may open: git says so inside
		}
		cd := l.CommonDir
		if IsSystemPath(cd) || SecretInside(cd, home) != "" || insideAny(cd, out.Workspaces) || insideAny(cd, out.Hidden) {
			continue
		}
		out.GitDirs = append(out.GitDirs, cd)
	}
	return nil
}

func insideAny(p string, roots []string) bool {
	for _, r := range roots {
		if WithinClean(p, r) {
			return true
		}
	}
	return false
}
