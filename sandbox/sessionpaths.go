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
	out.GitDirs = LinkedGitDirs(out.Workspaces, out.Hidden, home)
	return nil
}

// LinkedGitDirs are the common git directories of those workspaces that
// are linked worktrees (`git worktree add`) or submodules' checkouts
// (protect.FindLinked): each holds the objects, refs and the worktree's
// own git dir, outside the workspace, and git can do nothing there
// without it. Shown writable to a command or a confined
// agent (their config and hooks stay read-only: protect.Scan lists them),
// except one that is a system path, holds or lies in one of home's
// secret places, or lies in a workspace or a hidden path already.
func LinkedGitDirs(workspaces, hidden []string, home string) []string {
	var out []string
	for _, w := range workspaces {
		l, err := protect.FindLinked(w)
		if err != nil {
			continue // not a linked worktree, or not one we may open: git says so inside
		}
		cd := l.CommonDir
		if IsSystemPath(cd) || SecretInside(cd, home) != "" || insideAny(cd, workspaces) || insideAny(cd, hidden) {
			continue
		}
		out = append(out, cd)
	}
	return out
}

func insideAny(p string, roots []string) bool {
	for _, r := range roots {
		if WithinClean(p, r) {
			return true
		}
	}
	return false
}
