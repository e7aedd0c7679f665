package protect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Linked is the git directories of a workspace whose .git is a file
// naming a git dir elsewhere. In a linked worktree (`git worktree add`)
// GitDir lives in CommonDir/worktrees/NAME, and CommonDir holds the
// objects, refs, config and hooks it shares with the main worktree. In a
// submodule's checkout (an agent opened in vendor/lib) GitDir is the
// submodule's repository in the superproject's .git/modules, and is its
// own CommonDir. Both lie outside the workspace, and git needs to write
// them to commit.
type Linked struct {
	GitDir    string
	CommonDir string
}

// ErrNotLinked means the workspace is not a linked worktree.
var ErrNotLinked = errors.New("not a linked worktree")

// FindLinked reads ws/.git and checks that the directories it names are
// really this worktree's: a .git file that anyone who could write the
// workspace may have made must not open some other directory. It holds
// only if the git dir sits in COMMON/worktrees/, names ws/.git back in its
// gitdir file, and COMMON is the git directory its commondir file names;
// or, for a submodule, if the git dir names ws back as its core.worktree
// (see findSubmodule).
func FindLinked(ws string) (Linked, error) {
	dotgit := filepath.Join(ws, ".git")
	st, err := os.Lstat(dotgit)
	if err != nil || !st.Mode().IsRegular() {
		return Linked{}, ErrNotLinked
	}
	b, err := readSmall(dotgit)
	if err != nil {
		return Linked{}, fmt.Errorf("read %s: %w", dotgit, err)
	}
	ptr, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return Linked{}, fmt.Errorf("%s does not start with gitdir:", dotgit)
	}
	gd := strings.TrimSpace(ptr)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(ws, gd)
	}
	gd, err = filepath.EvalSymlinks(gd)
	if err != nil {
		return Linked{}, fmt.Errorf("the git dir %s names: %w", dotgit, err)
	}
	if filepath.Base(filepath.Dir(gd)) != "worktrees" {
		return findSubmodule(ws, gd)
	}
	back, err := readSmall(filepath.Join(gd, "gitdir"))
	if err != nil {
		return Linked{}, fmt.Errorf("%s has no gitdir file: %w", gd, err)
	}
	backPath := strings.TrimSpace(string(back))
	if !filepath.IsAbs(backPath) {
		backPath = filepath.Join(gd, backPath)
	}
	if r, err := filepath.EvalSymlinks(backPath); err != nil || r != dotgit {
		return Linked{}, fmt.Errorf("%s does not point back at %s", gd, dotgit)
	}
	cdb, err := readSmall(filepath.Join(gd, "commondir"))
	if err != nil {
		return Linked{}, fmt.Errorf("%s has no commondir file: %w", gd, err)
	}
	cd := strings.TrimSpace(string(cdb))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(gd, cd)
	}
	cd, err = filepath.EvalSymlinks(cd)
	if err != nil || cd != filepath.Dir(filepath.Dir(gd)) {
		return Linked{}, fmt.Errorf("%s names a common dir other than the one it lives in", gd)
	}
	for _, want := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(cd, want)); err != nil {
			return Linked{}, fmt.Errorf("%s is not a git directory (no %s)", cd, want)
		}
	}
	return Linked{GitDir: gd, CommonDir: cd}, nil
}

// findSubmodule checks that git dir gd, which ws/.git names, is the
// repository of a submodule checked out at ws: git wrote core.worktree
// there when it cloned the submodule, and only the person's git can
// write a file outside the workspace that names it. A separate git dir
// (`git init --separate-git-dir`) names no worktree, and is not opened.
func findSubmodule(ws, gd string) (Linked, error) {
	if _, err := os.Lstat(filepath.Join(gd, "commondir")); err == nil {
		return Linked{}, ErrNotLinked // shares another's objects and refs: not ours to open
	}
	b, err := readSmall(filepath.Join(gd, "config"))
	if err != nil {
		return Linked{}, ErrNotLinked
	}
	vars, err := parseGitConfig(b)
	if err != nil {
		return Linked{}, fmt.Errorf("%s/config: %w", gd, err)
	}
	var wt configVals
	for _, v := range vars {
		if v.Name == "core.worktree" {
			wt.worktrees = append(wt.worktrees, v.Value)
		}
	}
	back := wt.worktree(gd)
	if back == "" {
		return Linked{}, ErrNotLinked // a separate git dir
	}
	if r, err := filepath.EvalSymlinks(back); err != nil || r != ws {
		return Linked{}, fmt.Errorf("%s names %s as its worktree, not %s", gd, back, ws)
	}
	if !isGitDir(gd) {
		return Linked{}, fmt.Errorf("%s is not a git directory", gd)
	}
	return Linked{GitDir: gd, CommonDir: gd}, nil
}

// LinkedNames are the protected paths of a linked worktree's git dirs:
// what the workspace's own .git/… names protect, in the common dir (its
// config and hooks run on the host), and the worktree's own config.
func LinkedNames(l Linked) []string {
	out := []string{filepath.Join(l.CommonDir, "config"), filepath.Join(l.CommonDir, "hooks")}
	// Read only with extensions.worktreeConfig, which lives in the
	// protected common config; guard it when it is there.
	if _, err := os.Lstat(filepath.Join(l.GitDir, "config.worktree")); err == nil {
		out = append(out, filepath.Join(l.GitDir, "config.worktree"))
	}
	return out
}
