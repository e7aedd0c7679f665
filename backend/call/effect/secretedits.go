package effect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// The last guard on a workspace's secrets: a run sees each hidden secret
// as a stand-in (bwrap, the container) or not at all (Landlock), and
// git is told to find a tracked one unchanged. Whatever still gets past
// that (a command that re-hashes the stand-in on purpose, a reset to a
// commit where the secret differs, a .env the person left modified) must
// not land silently: a change to the secret file itself, a different
// blob for a secret path in the index, or a moved ref whose commit
// records a different blob for one, holds the change set behind a card.

// SecretEdits describes what s does to the workspace's secrets; l reads
// the workspace before and after the run (a staged run's upper layer, or
// a checked run's checkpoint before: without either, only the secret
// files themselves can be judged). expose lists the secrets the person
// lets commands read, which they may also change.
func SecretEdits(ctx context.Context, s Set, l Layers, root string, expose protect.Exposure) []string {
	secret := func(rel string) bool { return protect.IsSecret(rel) && !expose.Exposes(rel) }
	var out []string
	var indexMoved bool
	for _, c := range s.Changes {
		p := filepath.ToSlash(c.Path)
		switch {
		case p == ".git/index":
			indexMoved = true
		case inGit(p) || c.Kind == Dir:
		case secret(p):
			out = append(out, "the secret file "+p+" is "+opDone[c.Op])
		}
	}
	if !l.Knows() {
		return out
	}
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		return out
	}
	g := gitEnv{root: root, upper: l.upper}
	if indexMoved {
		out = append(out, g.indexSecrets(ctx, l, secret)...)
	}
	return append(out, g.commitSecrets(ctx, s, l, secret)...)
}

// indexSecrets compares the secret entries of git's index before the run
// and after it.
func (g gitEnv) indexSecrets(ctx context.Context, l Layers, secret func(string) bool) []string {
	unreadable := func(err error) []string {
		return []string{"what it does to git's index could not be read (" + err.Error() + ")"}
	}
	before, err := g.indexBefore(ctx, l, secret)
	if err != nil {
		return unreadable(err)
	}
	after := map[string]string{}
	if p := l.AfterPath(".git/index"); p != "" {
		if after, err = g.stagedEntries(ctx, p, secret); err != nil {
			return unreadable(err)
		}
	}
	var out []string
	for _, p := range unionKeys(before, after) {
		if before[p] != after[p] {
			out = append(out, "git's index records a different "+p)
		}
	}
	return out
}

// indexBefore reads the secret entries of the index as it was: in the
// workspace for a staged run, from the checkpoint (through a file of its
// own, as git reads an index only from a file) for a checked one.
func (g gitEnv) indexBefore(ctx context.Context, l Layers, secret func(string) bool) (map[string]string, error) {
	if l.Staged() {
		return g.stagedEntries(ctx, filepath.Join(g.root, ".git", "index"), secret)
	}
	b, err := l.Before(".git/index")
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "gatehouse-index-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return g.stagedEntries(ctx, f.Name(), secret)
}

// stagedEntries maps each secret path in index to its mode, blob and
// stage.
func (g gitEnv) stagedEntries(ctx context.Context, index string, secret func(string) bool) (map[string]string, error) {
	out := map[string]string{}
	if _, err := os.Stat(index); err != nil {
		return out, nil
	}
	// Only the secret-named paths: a monorepo's whole index listed twice
	// would cost a staged git command tens of milliseconds.
	c := g.cmd(ctx, append([]string{"--work-tree=" + g.root, "ls-files", "-s", "-z", "--"}, protect.SecretPathspecs()...)...)
	c.Dir = g.root
	c.Env = append(c.Env, "GIT_INDEX_FILE="+index)
	b, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		meta, p, ok := bytes.Cut(e, []byte{'\t'})
		if ok && secret(string(p)) {
			out[string(p)] += string(meta) + ";"
		}
	}
	return out, nil
}

// commitSecrets names the secret paths whose blob differs between where
// a ref the run moved was and where it is now (a new ref against HEAD
// before the run).
func (g gitEnv) commitSecrets(ctx context.Context, s Set, l Layers, secret func(string) bool) []string {
	refs := map[string]bool{}
	for _, c := range s.Changes {
		p := filepath.ToSlash(c.Path)
		switch {
		case strings.HasPrefix(p, ".git/refs/heads/") && c.Kind != Dir && c.Op != Delete:
			refs[strings.TrimPrefix(p, ".git/")] = true
		case p == ".git/HEAD" && c.Op != Delete:
			refs["HEAD"] = true
		case p == ".git/packed-refs":
			b, _ := l.After(p)
			for _, r := range packedNames(b) {
				refs[r] = true
			}
		}
	}
	head := g.headBefore(ctx, l)
	seen := map[string]bool{}
	var out []string
	for r := range refs {
		from, to := refIn(l.Before, r), refIn(l.After, r)
		if strings.HasPrefix(to, "ref: ") || to == "" {
			continue // a symbolic HEAD follows its branch, judged itself
		}
		if from == "" || strings.HasPrefix(from, "ref: ") {
			from = head
		}
		if from == "" || from == to {
			continue
		}
		c := g.cmd(ctx, "diff-tree", "-r", "--no-renames", "--name-only", "-z", from, to)
		b, err := c.Output()
		if err != nil {
			out = append(out, "what "+r+" now records could not be read ("+err.Error()+")")
			continue
		}
		for _, p := range bytes.Split(b, []byte{0}) {
			if len(p) > 0 && secret(string(p)) && !seen[string(p)] {
				seen[string(p)] = true
				out = append(out, fmt.Sprintf("%s records a different %s (%s)", shortRef(r), p, short(to)))
			}
		}
	}
	sort.Strings(out)
	return out
}

// headBefore is the commit HEAD named before the run: git's own answer
// where the workspace still holds that side (staged), else read from
// the checkpoint's HEAD and the ref it names.
func (g gitEnv) headBefore(ctx context.Context, l Layers) string {
	if l.Staged() {
		return g.revParse(ctx, "HEAD")
	}
	h := refIn(l.Before, "HEAD")
	if r, ok := strings.CutPrefix(h, "ref: "); ok {
		h = refIn(l.Before, r)
	}
	return h
}

func (g gitEnv) revParse(ctx context.Context, rev string) string {
	b, err := g.cmd(ctx, "rev-parse", "--verify", "-q", rev+"^{commit}").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// opDone says what an op did to a file.
var opDone = map[Op]string{Create: "created", Modify: "modified", Delete: "deleted"}

func shortRef(r string) string { return strings.TrimPrefix(r, "refs/heads/") }

func unionKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
