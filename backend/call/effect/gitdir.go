package effect

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// What a run takes from the repository's own store in .git, as opposed to
// what git does to it in ordinary work. Git rewrites .git all the time: a
// commit replaces the index and HEAD's branch, gc and repack delete loose
// objects and old packs once a new pack holds them, prune deletes objects
// nothing uses, pack-refs moves refs into packed-refs, a merged branch is
// deleted. None of that loses anything. What does: the whole .git gone,
// HEAD, the object store or the refs directory gone (git no longer sees a
// repository), objects deleted that nothing else holds while a ref, a
// reflog or the index still needs them, the index of tracked files
// deleted, the checked-out branch or a tag deleted.

// Compiled at first use, not at every start of every gatehouse command
// (the hook's and `gatehouse exec`'s included): {38} makes a large program.
var (
	looseObject = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\.git/objects/([0-9a-f]{2})/([0-9a-f]{38})$`)
	})
	packFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.git/objects/pack/(pack-[0-9a-f]+)\.pack$`) })
)

// RepoLosses names what s deletes of the repository's history and state,
// for the card ("HEAD", ".git/refs", ".git/objects (3 objects still in
// use)"); nil when it deletes none of it.
func RepoLosses(ctx context.Context, s Set, l Layers) []string {
	if !touchesGit(s) || !l.HadRepo() {
		return nil
	}
	if l.Deleted(".git") {
		return []string{"the whole .git directory: objects, refs, HEAD, index"}
	}
	var out []string
	if l.Deleted(".git/HEAD") {
		out = append(out, "HEAD")
	}
	if l.Deleted(".git/objects") {
		out = append(out, ".git/objects")
	} else if what := l.objectsLost(ctx, s); what != "" {
		out = append(out, what)
	}
	if l.Deleted(".git/refs") {
		out = append(out, ".git/refs")
	} else {
		out = append(out, l.refsLost(s)...)
	}
	if l.Deleted(".git/index") {
		if idx, err := l.tracked(l.Before); err == nil && len(idx) > 0 {
			out = append(out, fmt.Sprintf(".git/index (which listed %s)", plural.Count(len(idx), "tracked file", "tracked files")))
		}
	}
	return out
}

func touchesGit(s Set) bool {
	for _, c := range s.Changes {
		if inGit(c.Path) {
			return true
		}
	}
	return false
}

// refsLost names the checked-out branch when it is gone (and HEAD still
// names it), and every tag deleted: a tag marks a release others refer to,
// and deleting one is never housekeeping. Other branches are judged by the
// commits they lose (ReadHistory).
func (l Layers) refsLost(s Set) []string {
	var out []string
	if head, err := l.Before(".git/HEAD"); err == nil {
		name := strings.TrimPrefix(strings.TrimSpace(string(head)), "ref: ")
		if strings.HasPrefix(name, "refs/heads/") && l.beforeRef(name) != "" && l.afterRef(name) == "" {
			after, err := l.After(".git/HEAD")
			if err != nil || strings.TrimSpace(string(after)) == "ref: "+name {
				out = append(out, "the checked-out branch "+strings.TrimPrefix(name, "refs/heads/"))
			}
		}
	}
	tags := map[string]bool{}
	for _, c := range s.Changes {
		p := filepath.ToSlash(c.Path)
		switch {
		case strings.HasPrefix(p, ".git/refs/tags/") && c.Op == Delete && c.Kind != Dir:
			tags[strings.TrimPrefix(p, ".git/")] = true
		case p == ".git/packed-refs":
			before, _ := l.Before(p)
			for _, r := range packedNames(before) {
				if strings.HasPrefix(r, "refs/tags/") {
					tags[r] = true
				}
			}
		}
	}
	for t := range tags {
		if l.beforeRef(t) != "" && l.afterRef(t) == "" {
			out = append(out, "tag "+strings.TrimPrefix(t, "refs/tags/"))
		}
	}
	return out
}

// objectsLost describes the deleted objects that nothing holds after the
// run and that a ref, a reflog or the index still uses; "" when there are
// none. Objects a new or kept pack holds (gc, repack) or that nothing
// used (prune) are git's housekeeping.
func (l Layers) objectsLost(ctx context.Context, s Set) string {
	gone, unknown := l.objectsGone(s)
	if len(gone) == 0 && unknown == 0 {
		return ""
	}
	used, err := l.inUse(ctx, gone)
	switch {
	case err != nil && !l.Staged():
		// Git cannot walk what is left: something it needs is gone.
		return fmt.Sprintf(".git/objects (%s deleted; git can no longer read the history without them: %v)", plural.Count(len(gone), "object", "objects"), err)
	case err != nil:
		return fmt.Sprintf(".git/objects (%s deleted; whether anything still uses them could not be read: %v)", plural.Count(len(gone), "object", "objects"), err)
	case unknown > 0:
		return fmt.Sprintf(".git/objects (%s deleted with no new pack to hold what they held)", plural.Count(unknown, "pack", "packs"))
	case used > 0:
		return fmt.Sprintf(".git/objects (%s still in use)", plural.Count(used, "object", "objects"))
	}
	return ""
}

// objectsGone are the deleted objects (loose, or in a deleted pack) that
// no pack, nor a loose copy, holds after the run; unknown counts deleted
// packs whose index could not be read and that no new pack may replace.
func (l Layers) objectsGone(s Set) (gone []string, unknown int) {
	var loose, packs []string
	newPack := false
	for _, c := range s.Changes {
		p := filepath.ToSlash(c.Path)
		if m := looseObject().FindStringSubmatch(p); m != nil && c.Op == Delete {
			loose = append(loose, m[1]+m[2])
		}
		if m := packFile().FindStringSubmatch(p); m != nil {
			switch c.Op {
			case Delete:
				packs = append(packs, m[1])
			case Create:
				newPack = true
			}
		}
	}
	if len(loose) == 0 && len(packs) == 0 {
		return nil, 0
	}
	var after []packIndex
	for _, n := range l.AfterNames(".git/objects/pack") {
		// An index whose pack is gone holds nothing.
		pack, ok := strings.CutSuffix(n, ".idx")
		if !ok || l.AfterPath(".git/objects/pack/"+pack+".pack") == "" {
			continue
		}
		b, err := l.After(".git/objects/pack/" + n)
		if err != nil {
			continue
		}
		if idx, err := readPackIndex(b); err == nil {
			after = append(after, idx)
		}
	}
	kept := func(sha string) bool {
		if l.AfterPath(".git/objects/"+sha[:2]+"/"+sha[2:]) != "" {
			return true
		}
		for _, idx := range after {
			if idx.has(sha) {
				return true
			}
		}
		return false
	}
	for _, sha := range loose {
		if !kept(sha) {
			gone = append(gone, sha)
		}
	}
	for _, p := range packs {
		b, err := l.Before(".git/objects/pack/" + p + ".idx")
		idx, perr := readPackIndex(b)
		if err != nil || perr != nil {
			if !newPack {
				unknown++
			}
			continue
		}
		for _, sha := range idx {
			if !kept(sha) {
				gone = append(gone, sha)
			}
		}
	}
	return gone, unknown
}

// inUse counts the objects of gone that a ref, a reflog or the index
// reaches. A staged run asks the repository as it was (the workspace,
// untouched, still holds them); a checked run asks it as it is, for the
// objects it now misses.
func (l Layers) inUse(ctx context.Context, gone []string) (int, error) {
	if len(gone) == 0 {
		return 0, nil
	}
	want := make(map[string]bool, len(gone))
	for _, g := range gone {
		want[g] = true
	}
	args := []string{"rev-list", "--objects", "--all", "--reflog", "--indexed-objects"}
	if !l.Staged() {
		args = append(args, "--missing=print")
	}
	c := (gitEnv{root: l.ws, gitDir: l.onDisk(".git")}).cmd(ctx, args...)
	c.Dir = l.ws
	out, err := c.StdoutPipe()
	if err != nil {
		return 0, fmt.Errorf("git rev-list: %w", err)
	}
	if err := c.Start(); err != nil {
		return 0, fmt.Errorf("git rev-list: %w", err)
	}
	n := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !l.Staged() {
			if !strings.HasPrefix(line, "?") {
				continue
			}
			line = line[1:]
		}
		sha, _, _ := strings.Cut(line, " ")
		if want[sha] {
			n++
			delete(want, sha)
		}
	}
	if err := c.Wait(); err != nil {
		return n, fmt.Errorf("git rev-list: %w", err)
	}
	return n, nil
}
