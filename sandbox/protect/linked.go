package protect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Linked is the git directories of a workspace that is a linked worktree
// (`git worktree add`): its .git is a file naming GitDir, which lives in
// CommonDir/worktrees/NAME, and CommonDir holds the objects, refs, config
// and hooks it shares with the main worktree. Both lie outside the
// workspace, and git needs to write them to commit.
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
// gitdir file, and COMMON is the git directory its commondir file names.
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
		return Linked{}, ErrNotLinked // a submodule or a separate git dir: not ours to open
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
