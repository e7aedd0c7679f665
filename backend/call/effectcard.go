package call

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/textdiff"
)

// The effect card shows what a command did: its changes (the first
// maxCardChanges of them), what the rules held it for, the person's own
// edits it would overwrite, and a diff of the text files it changed.

const (
	maxCardChanges = 500
	// maxCardDiff bounds the card's diff; maxDiffFile each file read for it.
	maxCardDiff = 64 << 10
	maxDiffFile = 256 << 10
)

// effectCard is the approval for a held change set. staged says whether
// the workspace is still untouched (a staged run) or already changed (a
// run checked after the fact, which a deny rolls back).
func (r *Runner) effectCard(c *InFlight, cs changeSets, dec policy.EffectDecision, staged bool, since conflictSince) approval.Request {
	created, modified, deleted := cs.counts()
	findings := append([]string{fmt.Sprintf("%d files created, %d modified, %d deleted", created, modified, deleted)}, dec.Findings...)
	if !staged {
		findings = append(findings, "this sandbox cannot stage commands, so the changes are in the workspace already; Deny rolls them back")
	}
	req := approval.Request{
		Kind: approval.KindEffect, Session: c.Session(), CallID: c.ID, Actor: c.actor(), Tool: c.Req.Tool,
		Binary: c.plan.Action.Binary, Cwd: c.plan.Action.Cwd, Reason: dec.Reason, Rule: dec.Rule.String(),
		Findings: findings, Via: string(c.Req.Via), Native: c.Req.Native, Goal: c.State.Live.Snapshot().Goal,
		Staged: staged,
	}
	for _, a := range c.plan.Action.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	multi := len(cs.workspaces) > 1
	for i, s := range cs.sets {
		for _, ch := range s.Changes {
			if len(req.Changes) == maxCardChanges {
				break
			}
			req.Changes = append(req.Changes, cardChange(cardPath(cs.workspaces[i], ch.Path, multi), ch))
		}
		if staged && since.ok {
			for _, cf := range effect.Conflicts(s, cs.workspaces[i], since.t) {
				req.Conflicts = append(req.Conflicts, approval.ConflictNote{Path: cardPath(cs.workspaces[i], cf.Path, multi), Why: cf.Why})
			}
		}
	}
	if n := cs.total(); n > maxCardChanges {
		req.Findings = append(req.Findings, fmt.Sprintf("the list shows the first %d of %d changes", maxCardChanges, n))
	}
	if staged {
		req.Diff = r.redact(stagedDiff(cs, multi))
	}
	return req
}

// conflictSince is when a staged run began (ok false for a checked run).
type conflictSince struct {
	t  time.Time
	ok bool
}

func cardPath(ws, rel string, multi bool) string {
	p := filepath.ToSlash(rel)
	if multi {
		return filepath.Base(ws) + "/" + p
	}
	return p
}

func cardChange(p string, c effect.Change) approval.Change {
	out := approval.Change{Path: p, Op: string(c.Op), Kind: string(c.Kind), Size: c.Size, Target: c.Target, ModeOnly: c.ModeOnly}
	if c.Op != effect.Delete {
		out.Mode = fmt.Sprintf("%04o", c.Mode.Perm())
	}
	if c.OldMode != 0 {
		out.OldMode = fmt.Sprintf("%04o", c.OldMode.Perm())
	}
	return out
}

// stagedDiff is a unified diff of the staged text files against the
// workspace's, cut at maxCardDiff.
func stagedDiff(cs changeSets, multi bool) string {
	var b strings.Builder
	for i, s := range cs.sets {
		for _, c := range s.Changes {
			if c.Kind != effect.File || c.ModeOnly || c.Op == effect.Delete || inGit(c.Path) {
				continue
			}
			if b.Len() >= maxCardDiff {
				b.WriteString("(more changes than the card shows)\n")
				return b.String()
			}
			name := cardPath(cs.workspaces[i], c.Path, multi)
			var old []byte
			if c.Op == effect.Modify {
				old = readHead(filepath.Join(cs.workspaces[i], c.Path))
			}
			b.WriteString(textdiff.Unified("a/"+name, "b/"+name, old, readHead(filepath.Join(cs.uppers[i], c.Path)), 3))
		}
	}
	s := b.String()
	if len(s) > maxCardDiff {
		s = s[:maxCardDiff] + "\n(cut)\n"
	}
	return s
}

func readHead(p string) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxDiffFile))
	return b
}
