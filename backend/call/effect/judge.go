package effect

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// A command's effect, as effect rules see it: built from its change sets
// (a staged run's upper layers, or the checkpoint diff of a run that could
// not be staged) and judged by the policy's [[effect]] rules.

// ChangeSets is what one call changed, per workspace.
type ChangeSets struct {
	Workspaces []string
	Sets       []Set
	// Uppers are the staged layers ("" for a run that was not staged).
	Uppers []string
	// Expose are the secrets the person lets commands read (and so
	// change); a change to any other secret holds.
	Expose protect.Exposure
	// Priors read a run that was not staged as it was before (from its
	// checkpoint); nil for a staged run, or when there is no checkpoint:
	// then its git history and tracked files cannot be judged.
	Priors []Prior
	// stored says where a checked run's sets were checkpointed (see
	// FromCheckpoints); nil for a staged run.
	stored []storedAt
}

// Layers is workspace i of the change sets, before and after.
func (cs ChangeSets) Layers(i int) Layers {
	var prior Prior
	if i < len(cs.Priors) {
		prior = cs.Priors[i]
	}
	l := NewLayers(cs.Workspaces[i], cs.Uppers[i], cs.Sets[i], prior)
	l.gitDir, _ = cs.gitDirAt(i)
	return l
}

// Total counts the changes across workspaces.
func (cs ChangeSets) Total() int {
	n := 0
	for _, s := range cs.Sets {
		n += len(s.Changes)
	}
	return n
}

// Counts tallies files created, modified and deleted (directories aside).
func (cs ChangeSets) Counts() (created, modified, deleted int) {
	for _, s := range cs.Sets {
		created += s.Count(Create)
		modified += s.Count(Modify)
		deleted += s.Count(Delete)
	}
	return
}

// inGit: git's own files, judged by what they do to history instead.
func inGit(rel string) bool {
	rel = filepath.ToSlash(rel)
	return rel == ".git" || strings.HasPrefix(rel, ".git/")
}

// PolicyEffect describes the change sets for effect rules. Git failing to
// answer leaves the finding out, except for history, where it holds.
func PolicyEffect(ctx context.Context, cs ChangeSets) policy.Effect {
	var e policy.Effect
	for i, s := range cs.Sets {
		ws := cs.Workspaces[i]
		l := cs.Layers(i)
		if _, beside := cs.gitDirAt(i); beside && len(s.Changes) > 0 {
			e.RepoBeside = true
		}
		var gone []Change
		var emptied []string
		for _, c := range s.Changes {
			e.Changes = append(e.Changes, policy.EffectChange{Path: filepath.ToSlash(c.Path), Op: string(c.Op), Dir: c.Kind == Dir})
			if inGit(c.Path) {
				continue
			}
			switch {
			case c.Op == Delete && c.Kind != Dir:
				gone = append(gone, c)
			case c.Emptied:
				emptied = append(emptied, c.Path)
			}
			if c.Kind == Symlink && c.Op != Delete && leadsOut(ws, c.Path, c.Target) {
				e.LinksOut = append(e.LinksOut, c.Path+" -> "+c.Target)
			}
		}
		// What git itself removed (a branch switch) lives on in history.
		byGit, err := RemovedByGit(s, l)
		if err != nil {
			byGit = nil
		}
		gone = slices.DeleteFunc(gone, func(c Change) bool { return byGit[c.Path] })
		e.Emptied += len(emptied)
		e.Deleted += countLosses(ctx, ws, paths(gone), len(emptied))
		lost, of := trackedLoss(s, l, gone, emptied)
		e.TrackedLost += lost
		e.TrackedFiles += of
		if dirs, err := TrackedDirs(ctx, s, ws); err == nil {
			e.TrackedDirsDeleted = append(e.TrackedDirsDeleted, notByGit(s, notMoved(s, dirs), byGit)...)
		}
		e.SecretEdits = append(e.SecretEdits, SecretEdits(ctx, s, l, ws, cs.Expose)...)
		if l.Knows() && touchesGitDir(s) {
			e.RepoLost = append(e.RepoLost, RepoLosses(ctx, s, l)...)
			e.HistoryRewrites = append(e.HistoryRewrites, historyOf(ctx, s, l)...)
		}
	}
	return e
}

// touchesGitDir: the run changed something in .git (most runs do not,
// and then git's side is not read at all).
func touchesGitDir(s Set) bool {
	for _, c := range s.Changes {
		if inGit(c.Path) {
			return true
		}
	}
	return false
}

func paths(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}

// countLosses counts deleted files, less those git ignores (build
// outputs a clean removes) once there are enough to matter.
func countLosses(ctx context.Context, ws string, gone []string, emptied int) int {
	if len(gone)+emptied <= policy.MassDeleteFiles {
		return len(gone)
	}
	ignored, err := Ignored(ctx, ws, gone)
	if err != nil {
		return len(gone)
	}
	n := 0
	for _, p := range gone {
		if !ignored[filepath.ToSlash(p)] && !ignored[p] {
			n++
		}
	}
	return n
}

// notMoved drops the tracked directories whose files all reappear
// elsewhere in the same set with the same sizes (a git mv or a rename):
// moved, not lost.
func notMoved(s Set, dirs []string) []string {
	created := map[int64]int{}
	for _, c := range s.Changes {
		if c.Op == Create && c.Kind == File {
			created[c.Size]++
		}
	}
	var out []string
	for _, d := range dirs {
		avail := map[int64]int{}
		for k, v := range created {
			avail[k] = v
		}
		moved, any := true, false
		for _, c := range s.Changes {
			if c.Op != Delete || c.Kind != File || !strings.HasPrefix(c.Path, d+string(filepath.Separator)) {
				continue
			}
			any = true
			if avail[c.Size] == 0 {
				moved = false
				break
			}
			avail[c.Size]--
		}
		if !moved || !any {
			out = append(out, d)
		}
	}
	return out
}

// notByGit drops the tracked directories whose every deleted file git
// itself took out of the index.
func notByGit(s Set, dirs []string, byGit map[string]bool) []string {
	if len(byGit) == 0 {
		return dirs
	}
	var out []string
	for _, d := range dirs {
		for _, c := range s.Changes {
			if c.Op == Delete && c.Kind != Dir && strings.HasPrefix(c.Path, d+string(filepath.Separator)) && !byGit[c.Path] {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// historyOf describes the rewrites that lose work or reach others: a ref
// moved off commits no other line holds, one a remote already has, and
// reflogs cut. An amend or a rebase of local commits is ordinary work.
func historyOf(ctx context.Context, s Set, l Layers) []string {
	h, err := ReadHistory(ctx, s, l)
	if err != nil {
		return []string{"its effect on git history could not be read (" + err.Error() + ")"}
	}
	var out []string
	for _, m := range h.Rewrites {
		if !m.Pushed && m.Lost == 0 {
			continue
		}
		what := fmt.Sprintf("%s moves from %s to %s", m.Ref, short(m.From), short(m.To))
		if m.To == "" {
			what = fmt.Sprintf("%s (at %s) is deleted", m.Ref, short(m.From))
		}
		if m.Lost > 0 {
			what += ", losing " + plural.Count(m.Lost, "commit", "commits")
		}
		if m.Pushed {
			what += ", rewriting commits a remote already has"
		}
		out = append(out, what)
	}
	for _, l := range h.DroppedLogs {
		out = append(out, "the reflog of "+l+" loses entries")
	}
	return out
}

func short(sha string) string {
	if len(sha) > 10 {
		return sha[:10]
	}
	return sha
}

// leadsOut: a link at rel (in workspace ws) whose target resolves,
// lexically, outside the workspace.
func leadsOut(ws, rel, target string) bool {
	t := target
	if !filepath.IsAbs(t) {
		t = filepath.Join(ws, filepath.Dir(rel), t)
	}
	t = filepath.Clean(t)
	return t != ws && !strings.HasPrefix(t, ws+string(filepath.Separator))
}

// Paths are the absolute paths the change sets touch, for the scoped
// checkpoints around their apply.
func (cs ChangeSets) Paths() []string {
	var out []string
	for i, s := range cs.Sets {
		for _, c := range s.Changes {
			out = append(out, filepath.Join(cs.Workspaces[i], c.Path))
		}
	}
	return out
}
