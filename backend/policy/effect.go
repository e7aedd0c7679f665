package policy

import (
	"fmt"
	"path"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Effect rules judge what a command did, not what its text said: a
// staged command's change set is applied at once (allow), held behind a
// card that shows the diff (ask), or discarded (deny). They sit in the
// same policy files as [[effect]] tables:
//
//	[[effect]]
//	id = "hold-migrations"
//	action = "ask"
//	paths = ["db/migrations/**"]   # relative to the workspace root
//	ops = ["modify", "delete"]     # create, modify, delete; empty means any
//	min_files = 1                  # how many matching changes it takes
//	reason = "migrations are applied to production"
//
// The builtin defaults hold deleting the repository's history or state in
// .git, a git history rewrite, deleting or emptying most of the tracked
// files (more than half, at least two) or more than 20 files, a whole
// tracked directory, a link that leads out of the workspace and a
// steering file the sandbox could not keep (steering.go); a change to a
// workspace secret always holds. The person's rules decide before the defaults (the
// most specific match, then the strictest); the workspace's own rules can
// only tighten.

// EffectRule is one [[effect]] table.
type EffectRule struct {
	ID       string
	Action   Verdict
	Paths    []string
	Ops      []string
	MinFiles int
	Reason   string

	globs  []glob
	source Source
	file   string
	line   int
}

type fileEffect struct {
	ID       string   `toml:"id"`
	Action   string   `toml:"action"`
	Paths    []string `toml:"paths"`
	Ops      []string `toml:"ops"`
	MinFiles int      `toml:"min_files"`
	Reason   string   `toml:"reason"`
}

// EffectChange is one changed path, relative to the workspace root.
type EffectChange struct {
	Path string
	Op   string // create, modify, delete
	Dir  bool
}

// Effect is what a staged command did, as effect rules see it.
type Effect struct {
	Changes []EffectChange
	// Deleted and Emptied count files deleted, and files left empty.
	Deleted, Emptied int
	// TrackedDirsDeleted are directories holding tracked files that are gone.
	TrackedDirsDeleted []string
	// HistoryRewrites describe git refs moved to a commit that does not
	// descend from the old one (losing commits), and reflog entries dropped.
	HistoryRewrites []string
	// LinksOut are symbolic links made to lead outside the workspace.
	LinksOut []string
	// SecretEdits describe changes to the workspace's secrets: the file
	// itself, or the blob git records for it in the index or a commit.
	// A run never sees a secret's content, so such a change is at best
	// made through its stand-in; it always holds (see DecideEffect).
	SecretEdits []string
	// TrackedFiles is how many files git tracked before the run (0 when
	// not read: no repository, or fewer losses than TrackedLossFloor);
	// TrackedLost how many of those the run deleted or emptied itself
	// (not git, and not moved).
	TrackedFiles, TrackedLost int
	// RepoLost names what the run deleted of the repository's own history
	// and state in .git ("HEAD", ".git/refs", "tag v1"); git's own
	// housekeeping (gc, repack, prune, a commit, a merged branch deleted)
	// is not in it.
	RepoLost []string
	// RepoBeside: some changes are in the workspace's repository beside
	// it (a linked worktree's common dir, a submodule's repository).
	RepoBeside bool
}

// EffectDecision is DecideEffect's answer.
type EffectDecision struct {
	Verdict  Verdict  `json:"verdict"`
	Rule     RuleRef  `json:"rule"`
	Reason   string   `json:"reason"`
	Findings []string `json:"findings,omitempty"`
}

// MassDeleteFiles is how many files a command may delete or empty before
// its effect is held.
const MassDeleteFiles = 20

// TrackedLossFloor is the fewest tracked files whose loss counts as most
// of a project: a run that deletes or empties more than half of the
// workspace's tracked files, and at least this many, is held whatever the
// project's size. One file is never "most of the project" (deleting the
// only file of a scratch repository, or one of two, is a single named
// step that rollback undoes); two of three are.
const TrackedLossFloor = 2

// mostTracked: the run lost more than half of the tracked files.
func (e Effect) mostTracked() bool {
	return e.TrackedLost >= TrackedLossFloor && e.TrackedLost*2 > e.TrackedFiles
}

// trackedPart says how much of the project the run lost.
func (e Effect) trackedPart() string {
	return fmt.Sprintf("%d of the workspace's %s", e.TrackedLost, plural.Count(e.TrackedFiles, "tracked file", "tracked files"))
}

// DecideEffect judges a staged command's change set.
func (p *Policy) DecideEffect(e Effect) EffectDecision {
	var findings []string
	hold := func(id, why string) EffectDecision {
		return EffectDecision{Verdict: Ask, Rule: builtinRef(id), Reason: why}
	}
	var d EffectDecision
	if best := bestEffect(p.userFx, e); best != nil {
		d = EffectDecision{Verdict: best.Action, Rule: best.ref(), Reason: best.ref().because(best.Reason)}
	} else {
		switch n := e.Deleted + e.Emptied; {
		case len(e.RepoLost) > 0:
			what := "the repository's history (" + strings.Join(e.RepoLost, ", ") + ")"
			if e.mostTracked() {
				what = e.trackedPart() + " and " + what
			}
			d = hold("repository-delete", "it deletes "+what)
		case len(e.HistoryRewrites) > 0:
			d = hold("history-rewrite", "it rewrites git history: "+strings.Join(e.HistoryRewrites, "; "))
		case e.mostTracked():
			d = hold("tracked-majority-delete", "it deletes or empties "+e.trackedPart()+" (more than half)")
		case len(e.TrackedDirsDeleted) > 0:
			d = hold("tracked-dir-delete", "it deletes the whole tracked directory "+strings.Join(e.TrackedDirsDeleted, ", "))
		case n > MassDeleteFiles:
			d = hold("mass-delete", fmt.Sprintf("it deletes or empties %d files (more than %d)", n, MassDeleteFiles))
		case len(e.LinksOut) > 0:
			d = hold("link-out", "it makes links that lead outside the workspace: "+strings.Join(e.LinksOut, ", "))
		case steeringChange(e) != "":
			d = hold("steering", "it writes "+steeringChange(e))
		default:
			where := "the workspace"
			if e.RepoBeside {
				where = "the workspace and its repository beside it"
			}
			d = EffectDecision{Verdict: Allow, Rule: builtinRef("effect-apply"), Reason: "the change set stays inside " + where + " and can be undone"}
		}
	}
	// A secret changed through its stand-in holds whatever the other
	// rules say: what the run recorded is not what the person has.
	if len(e.SecretEdits) > 0 && d.Verdict < Ask {
		d = hold("secret-edit", "it changes a workspace secret it could not read: "+strings.Join(e.SecretEdits, "; "))
	}
	// The workspace's own rules can only raise the verdict.
	for i := range p.workspaceFx {
		r := &p.workspaceFx[i]
		if r.Action > d.Verdict && r.matchCount(e) > 0 {
			d = EffectDecision{Verdict: r.Action, Rule: r.ref(), Reason: r.ref().because(r.Reason)}
		}
	}
	if e.Deleted+e.Emptied > 0 {
		findings = append(findings, plural.Count(e.Deleted+e.Emptied, "file", "files")+" deleted or emptied")
	}
	if e.TrackedLost > 0 {
		findings = append(findings, e.trackedPart()+" deleted or emptied")
	}
	for _, r := range e.RepoLost {
		findings = append(findings, "deleted from the repository: "+r)
	}
	findings = append(findings, e.HistoryRewrites...)
	findings = append(findings, e.SecretEdits...)
	for _, t := range e.TrackedDirsDeleted {
		findings = append(findings, "tracked directory "+t+" deleted")
	}
	for _, l := range e.LinksOut {
		findings = append(findings, "link "+l+" leads outside the workspace")
	}
	d.Findings = findings
	return d
}

// bestEffect is the matching rule with the most specific paths, then the
// strictest action.
func bestEffect(rules []EffectRule, e Effect) *EffectRule {
	var best *EffectRule
	bestSpec := -1
	for i := range rules {
		r := &rules[i]
		if r.matchCount(e) == 0 {
			continue
		}
		spec := 0
		for _, g := range r.Paths {
			spec = max(spec, len(literalPrefix(g)))
		}
		if best == nil || spec > bestSpec || (spec == bestSpec && r.Action > best.Action) {
			best, bestSpec = r, spec
		}
	}
	return best
}

// matchCount: how many changes the rule covers, 0 when below min_files.
func (r *EffectRule) matchCount(e Effect) int {
	n := 0
	for _, c := range e.Changes {
		if r.covers(c) {
			n++
		}
	}
	if n < max(1, r.MinFiles) {
		return 0
	}
	return n
}

func (r *EffectRule) covers(c EffectChange) bool {
	if len(r.Ops) > 0 {
		ok := false
		for _, op := range r.Ops {
			ok = ok || op == c.Op
		}
		if !ok {
			return false
		}
	}
	if len(r.globs) == 0 {
		return true
	}
	for _, g := range r.globs {
		if g.match("/"+path.Clean(c.Path), "") {
			return true
		}
	}
	return false
}

func (r *EffectRule) ref() RuleRef {
	return RuleRef{ID: r.ID, Source: r.source, File: r.file, Line: r.line}
}

var effectOps = map[string]bool{"create": true, "modify": true, "delete": true}

// buildEffects compiles a file's [[effect]] tables.
func buildEffects(data []byte, file string, fes []fileEffect, src Source) ([]EffectRule, error) {
	lines := tableLines(data, "effect")
	out := make([]EffectRule, 0, len(fes))
	for i, fe := range fes {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		r := EffectRule{ID: fe.ID, Paths: fe.Paths, Ops: fe.Ops, MinFiles: fe.MinFiles, Reason: fe.Reason, source: src, file: file, line: line}
		if r.ID == "" {
			r.ID = fmt.Sprintf("effect-%d", i+1)
		}
		if err := r.Action.UnmarshalText([]byte(fe.Action)); err != nil {
			return nil, fmt.Errorf("%s:%d: effect %q: %w", file, line, r.ID, err)
		}
		for _, op := range fe.Ops {
			if !effectOps[op] {
				return nil, fmt.Errorf("%s:%d: effect %q: op %q is not create, modify or delete", file, line, r.ID, op)
			}
		}
		if fe.MinFiles < 0 {
			return nil, fmt.Errorf("%s:%d: effect %q: min_files must be 0 or more", file, line, r.ID)
		}
		for _, pat := range fe.Paths {
			if strings.HasPrefix(pat, "/") || strings.HasPrefix(pat, "~") {
				return nil, fmt.Errorf("%s:%d: effect %q: paths are relative to the workspace root, not %q", file, line, r.ID, pat)
			}
			g, err := compileGlob("/"+pat, "")
			if err != nil {
				return nil, fmt.Errorf("%s:%d: effect %q: %w", file, line, r.ID, err)
			}
			r.globs = append(r.globs, g)
		}
		out = append(out, r)
	}
	return out, nil
}

// tableLines returns the line of each [[name]] header, in order.
func tableLines(data []byte, name string) []int {
	var p unstable.Parser
	p.Reset(data)
	var lines []int
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.ArrayTable {
			continue
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		k := it.Node()
		if string(k.Data) == name && it.IsLast() {
			lines = append(lines, p.Shape(k.Raw).Start.Line)
		}
	}
	return lines
}
