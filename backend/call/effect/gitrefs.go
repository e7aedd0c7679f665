package effect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// A staged run's git history: what it does to the refs of the repository
// in the workspace, read from the change set and the two layers, judged
// with git itself (the commits it made live in the upper layer's object
// store, which git reads beside the workspace's).

// RefMove is a git ref the run moved to a commit that does not descend
// from the old one, or deleted (To empty).
type RefMove struct {
	Ref  string `json:"ref"`
	From string `json:"from"`
	To   string `json:"to"`
	// Lost counts the commits the old position reached that the new does
	// not hold an equivalent of (they live on only in the reflog). A
	// rebase loses none, since every commit has its counterpart; nor does
	// an amend, which replaces the tip.
	Lost int `json:"lost"`
	// Pushed: a remote-tracking ref holds the old commit, so others have it.
	Pushed bool `json:"pushed"`
}

// History is what a change set does to the workspace's git history.
type History struct {
	Rewrites []RefMove `json:"rewrites,omitempty"`
	// DroppedLogs are reflogs the run shortened or deleted.
	DroppedLogs []string `json:"dropped_logs,omitempty"`
}

// ReadHistory judges the refs and reflogs s changes in the workspace's
// .git, comparing them as they were and are (see Layers). A workspace
// that had no .git directory has no history to judge.
func ReadHistory(ctx context.Context, s Set, l Layers) (History, error) {
	var h History
	if !l.HadRepo() {
		return h, nil
	}
	refs := map[string]bool{}
	for _, c := range s.Changes {
		p := filepath.ToSlash(c.Path)
		switch {
		case strings.HasPrefix(p, ".git/refs/") && c.Kind != Dir:
			refs[strings.TrimPrefix(p, ".git/")] = true
		case p == ".git/packed-refs":
			before, _ := l.Before(p)
			after, _ := l.After(p)
			for _, r := range packedNames(before, after) {
				refs[r] = true
			}
		case strings.HasPrefix(p, ".git/logs/") && c.Kind != Dir:
			// A deleted branch's log goes with it: the branch is judged by
			// what it loses (below), not by its log.
			if ref := strings.TrimPrefix(p, ".git/logs/"); c.Op == Delete && l.afterRef(ref) == "" && l.beforeRef(ref) != "" {
				continue
			}
			if dropped(c, l, p) {
				h.DroppedLogs = append(h.DroppedLogs, strings.TrimPrefix(p, ".git/logs/"))
			}
		}
	}
	g := gitEnv{root: l.ws, upper: l.upper, gitDir: l.onDisk(".git")}
	for r := range refs {
		from, to := l.beforeRef(r), l.afterRef(r)
		if from == "" || from == to || symbolic(from) || symbolic(to) {
			continue
		}
		var lost int
		if to == "" {
			// A deleted branch loses what no other ref reaches.
			n, err := g.unreachable(ctx, from, r)
			if err != nil {
				return h, err
			}
			if n == 0 {
				continue
			}
			lost = n
		} else {
			ok, err := g.isAncestor(ctx, from, to)
			if err != nil {
				return h, err
			}
			if ok {
				continue
			}
			if lost, err = g.lost(ctx, from, to); err != nil {
				return h, err
			}
		}
		pushed, err := g.onRemote(ctx, from)
		if err != nil {
			return h, err
		}
		h.Rewrites = append(h.Rewrites, RefMove{Ref: r, From: from, To: to, Lost: lost, Pushed: pushed})
	}
	return h, nil
}

// symbolic: a ref that names another ref (refs/remotes/origin/HEAD).
func symbolic(v string) bool { return strings.HasPrefix(v, "ref:") }

// HadRepo reports whether the workspace had a git repository before the
// run (its HEAD could be read).
func (l Layers) HadRepo() bool {
	_, err := l.Before(".git/HEAD")
	return err == nil
}

// beforeRef and afterRef read a ref on either side: its loose file, else
// its packed-refs line; "" when it does not exist there.
func (l Layers) beforeRef(ref string) string {
	return refIn(l.Before, ref)
}

func (l Layers) afterRef(ref string) string {
	return refIn(l.After, ref)
}

func refIn(read func(string) ([]byte, error), ref string) string {
	if b, err := read(".git/" + ref); err == nil {
		return strings.TrimSpace(string(b))
	}
	b, err := read(".git/packed-refs")
	if err != nil {
		return ""
	}
	return packedLookup(b, ref)
}

func packedLookup(b []byte, ref string) string {
	for _, l := range strings.Split(string(b), "\n") {
		if sha, name, ok := strings.Cut(l, " "); ok && name == ref {
			return sha
		}
	}
	return ""
}

// packedNames are the refs either packed-refs file names.
func packedNames(files ...[]byte) []string {
	var out []string
	for _, b := range files {
		for _, l := range strings.Split(string(b), "\n") {
			if _, name, ok := strings.Cut(l, " "); ok && strings.HasPrefix(name, "refs/") {
				out = append(out, name)
			}
		}
	}
	return out
}

// dropped: the run deleted a reflog, or left it with fewer entries.
func dropped(c Change, l Layers, rel string) bool {
	if c.Op == Delete {
		return true
	}
	if c.Op != Modify {
		return false
	}
	before, _ := l.Before(rel)
	after, _ := l.After(rel)
	return bytes.Count(after, []byte("\n")) < bytes.Count(before, []byte("\n"))
}

// gitEnv runs git over both layers' objects, with nothing of the
// repository's that could run a program. gitDir is root/.git unless set
// (a git dir outside the workspace, see Layers.gitDir).
type gitEnv struct{ root, upper, gitDir string }

func (g gitEnv) cmd(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat"}, args...)
	c := exec.CommandContext(ctx, "git", full...)
	dir := g.gitDir
	if dir == "" {
		dir = filepath.Join(g.root, ".git")
	}
	env := []string{
		"GIT_DIR=" + dir,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(dir, "objects"),
		"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent",
	}
	if fi, err := os.Stat(filepath.Join(g.upper, ".git", "objects")); err == nil && fi.IsDir() {
		env = append(env, "GIT_OBJECT_DIRECTORY="+filepath.Join(g.upper, ".git", "objects"))
	}
	c.Env = env
	return c
}

func (g gitEnv) isAncestor(ctx context.Context, from, to string) (bool, error) {
	err := g.cmd(ctx, "merge-base", "--is-ancestor", from, to).Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return false, nil
	}
	return false, fmt.Errorf("git merge-base: %w", err)
}

// lost counts the commits from reaches that to does not, less those to
// holds an equivalent of (git cherry's "-": a rebase) and a replaced tip
// (from and to share their parent: an amend).
func (g gitEnv) lost(ctx context.Context, from, to string) (int, error) {
	out, err := g.cmd(ctx, "cherry", to, from).Output()
	if err != nil {
		return 0, fmt.Errorf("git cherry: %w", err)
	}
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "+ ") {
			n++
		}
	}
	if n > 0 && g.parent(ctx, from) != "" && g.parent(ctx, from) == g.parent(ctx, to) {
		n--
	}
	return n, nil
}

func (g gitEnv) parent(ctx context.Context, commit string) string {
	out, err := g.cmd(ctx, "rev-parse", "--verify", "-q", commit+"^").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// unreachable counts the commits from reaches that no ref but ref does.
func (g gitEnv) unreachable(ctx context.Context, from, ref string) (int, error) {
	out, err := g.cmd(ctx, "rev-list", "--count", from, "--not", "--exclude="+ref, "--all").Output()
	if err != nil {
		return 0, fmt.Errorf("git rev-list: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

func (g gitEnv) onRemote(ctx context.Context, commit string) (bool, error) {
	out, err := g.cmd(ctx, "for-each-ref", "--count=1", "--contains", commit, "refs/remotes").Output()
	if err != nil {
		return false, fmt.Errorf("git for-each-ref: %w", err)
	}
	return len(bytes.TrimSpace(out)) > 0, nil
}

// TrackedDirs are the directories s deletes whole that hold files git
// tracks (the top-most of them), as the workspace's index says.
func TrackedDirs(ctx context.Context, s Set, root string) ([]string, error) {
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		return nil, nil
	}
	deleted := map[string]bool{}
	for _, c := range s.Changes {
		if c.Op == Delete && c.Kind == Dir {
			deleted[c.Path] = true
		}
	}
	var out []string
	for d := range deleted {
		if deleted[filepath.Dir(d)] || strings.HasPrefix(filepath.ToSlash(d), ".git") {
			continue // its parent goes too, or it is git's own
		}
		tracked, err := (gitEnv{root: root}).tracks(ctx, d)
		if err != nil {
			return nil, err
		}
		if tracked {
			out = append(out, d)
		}
	}
	return out, nil
}

// tracks reports whether the index holds a file under dir; it stops at
// the first one.
func (g gitEnv) tracks(ctx context.Context, dir string) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := g.cmd(ctx, "--work-tree="+g.root, "ls-files", "-z", "--", dir)
	c.Dir = g.root
	out, err := c.StdoutPipe()
	if err != nil {
		return false, err
	}
	if err := c.Start(); err != nil {
		return false, fmt.Errorf("git ls-files: %w", err)
	}
	b := make([]byte, 1)
	n, _ := out.Read(b)
	cancel()
	_ = c.Wait()
	return n > 0, nil
}

// Tracks reports whether git tracks a file under dir (relative to root);
// a workspace without a .git directory tracks nothing.
func Tracks(ctx context.Context, root, dir string) (bool, error) {
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		return false, nil
	}
	return gitEnv{root: root}.tracks(ctx, dir)
}

// Ignored returns which of paths (relative to root) git ignores and does
// not track: build outputs, whose deletion is a clean rather than a loss.
// A workspace without a .git directory ignores nothing.
func Ignored(ctx context.Context, root string, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() || len(paths) == 0 {
		return out, nil
	}
	c := (gitEnv{root: root}).cmd(ctx, "--work-tree="+root, "check-ignore", "-z", "--stdin")
	c.Dir = root
	c.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	b, err := c.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: none ignored
		return nil, fmt.Errorf("git check-ignore: %w", err)
	}
	for _, p := range strings.Split(string(b), "\x00") {
		if p != "" {
			out[p] = true
		}
	}
	return out, nil
}

// RemovedByGit are the deleted files of s that git itself took out of
// the index in the same run (a branch switch, git rm, a reset): they live
// on in history, and history rules judge that. It compares the index as
// it was with the index as the run left it, so it needs both sides and an
// index that is still there after (one deleted took nothing out: it lost
// everything, which the repository rules judge).
func RemovedByGit(s Set, l Layers) (map[string]bool, error) {
	out := map[string]bool{}
	if !l.Knows() || !l.changed[".git/index"] || l.Deleted(".git/index") {
		return out, nil
	}
	var gone []string
	for _, c := range s.Changes {
		if c.Op == Delete && c.Kind != Dir && !inGit(c.Path) {
			gone = append(gone, filepath.ToSlash(c.Path))
		}
	}
	if len(gone) == 0 {
		return out, nil
	}
	before, err := l.tracked(l.Before)
	if err != nil {
		return nil, err
	}
	after, err := l.tracked(l.After)
	if err != nil {
		return nil, err
	}
	for _, p := range gone {
		if before[p] && !after[p] {
			out[filepath.FromSlash(p)] = true
		}
	}
	return out, nil
}

// tracked is the set of paths an index lists, read from one side.
func (l Layers) tracked(read func(string) ([]byte, error)) (map[string]bool, error) {
	b, err := read(".git/index")
	if err != nil {
		return nil, fmt.Errorf("read the git index: %w", err)
	}
	paths, err := indexPaths(b)
	if err != nil {
		return nil, fmt.Errorf("read the git index: %w", err)
	}
	out := make(map[string]bool, len(paths))
	for _, p := range paths {
		out[p] = true
	}
	return out, nil
}
