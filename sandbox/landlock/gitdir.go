package landlock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/gitguard"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// extraRules adds the session's cache (writable, though it lies in the
// hidden data dir) and git's own directories, where git must create
// lock files for add, commit, stash, rebase and worktree to work.
func extraRules(p *sandbox.Prepared, special map[string]access, l *initproc.Landlock) {
	if p.Cache != "" {
		carve(p.Cache, readWrite, special, l)
	}
	l.GitDirs = append(l.GitDirs, gitDirs(p)...)
}

// gitDirs are the directories that get git's rights: each workspace's
// .git (a directory, not a link) and a linked worktree's common dir,
// which holds its git dir.
func gitDirs(p *sandbox.Prepared) []string {
	var out []string
	for _, w := range p.Workspaces {
		g := filepath.Join(w, ".git")
		if st, err := os.Lstat(g); err == nil && st.IsDir() {
			out = append(out, g)
		}
	}
	return append(out, p.GitDirs...)
}

// guarded are the protected paths inside the git dirs: Landlock's rights
// reach them, so gitguard watches them instead (with a protected link's
// target when that lies inside too).
func guarded(p *sandbox.Prepared) (out, keep []string) {
	dirs := gitDirs(p)
	if len(dirs) == 0 {
		// Nothing lies inside a git dir: no need to look for what is
		// protected, which would cost every call a walk of the home's
		// git settings.
		return nil, nil
	}
	inGit := func(q string) bool {
		for _, d := range dirs {
			if q != d && sandbox.Within(q, d) {
				return true
			}
		}
		return false
	}
	for _, w := range p.Workspaces {
		set, err := protect.For(w)
		if err != nil {
			// Rules fails on the same error, so nothing runs.
			continue
		}
		for _, pr := range append(set.Existing, set.Missing...) {
			if inGit(pr) {
				out = append(out, pr)
			}
			if t, err := filepath.EvalSymlinks(pr); err == nil && t != pr && inGit(t) {
				out = append(out, t)
			}
		}
		// Submodules' git dirs inside the guarded .git/modules take the
		// run's writes (objects, refs); their own config and hooks are
		// guarded paths of their own above.
		keep = append(keep, set.Writable...)
	}
	return out, keep
}

// guardGit runs exec with the git dirs' protected paths watched: a
// change kills the run at once and is undone once it is dead, and the
// result says so. Without a watch the run does not start, since its
// rules let it write those paths.
func guardGit(ctx context.Context, p *sandbox.Prepared, call *launch.Invocation, exec func() (sandbox.Result, error)) (sandbox.Result, error) {
	paths, keep := guarded(p)
	if len(paths) == 0 {
		return exec()
	}
	lease, err := gitguard.Default.Enter(ctx, paths, keep)
	if err != nil {
		return sandbox.Result{Backend: Name}, fmt.Errorf("keep git's config and hooks protected: %w", err)
	}
	call.Abort, call.AbortReason = lease.Abort(), sandbox.KillProtected
	res, err := exec()
	res.Violations = append(res.Violations, lease.Leave()...)
	return res, err
}
