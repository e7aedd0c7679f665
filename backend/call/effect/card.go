package effect

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/textdiff"
)

// What an effect card shows of a change set: its changes (the first
// maxCardChanges of them), what the rules held it for, the person's own
// edits it would overwrite, and a diff of the text files it changed.

// maxCardChanges bounds the changes a card lists.
const maxCardChanges = 500

// Card completes an effect card whose header (session, call, command) the
// caller filled. staged says whether the workspace is still untouched (a
// staged run, begun at since) or already changed (a run checked after
// the fact, which a deny rolls back); redact cleans the diff.
func Card(req approval.Request, cs ChangeSets, dec policy.EffectDecision, staged bool, since time.Time, redact func(string) string) approval.Request {
	created, modified, deleted := cs.Counts()
	req.Kind, req.Reason, req.Rule, req.Staged = approval.KindEffect, dec.Reason, dec.Rule.String(), staged
	req.Findings = append([]string{fmt.Sprintf("%s created, %d modified, %d deleted", plural.Count(created, "file", "files"), modified, deleted)}, dec.Findings...)
	if !staged {
		req.Findings = append(req.Findings, "this sandbox cannot stage commands, so the changes are in the workspace already; Deny rolls them back")
	}
	multi := len(cs.Workspaces) > 1
	for i, s := range cs.Sets {
		for _, ch := range s.Changes {
			if len(req.Changes) == maxCardChanges {
				break
			}
			req.Changes = append(req.Changes, CardChange(cs.cardPath(i, ch.Path, multi), ch))
		}
		if staged && !since.IsZero() {
			for _, cf := range Conflicts(s, cs.Workspaces[i], since) {
				req.Conflicts = append(req.Conflicts, approval.ConflictNote{Path: CardPath(cs.Workspaces[i], cf.Path, multi), Why: cf.Why})
			}
		}
	}
	if n := cs.Total(); n > maxCardChanges {
		req.Findings = append(req.Findings, fmt.Sprintf("the list shows the first %d of %s", maxCardChanges, plural.Count(n, "change", "changes")))
	}
	if staged {
		req.Diff = redact(StagedDiff(cs, multi))
	}
	return req
}

// ChosenIn are the conflicting paths the person chose on the card to
// overwrite, in one workspace's terms.
func ChosenIn(chosen map[string]bool, ws string, multi bool) map[string]bool {
	if !multi {
		return chosen
	}
	out := map[string]bool{}
	prefix := filepath.Base(ws) + "/"
	for p := range chosen {
		if strings.HasPrefix(p, prefix) {
			out[filepath.FromSlash(strings.TrimPrefix(p, prefix))] = true
		}
	}
	return out
}

const (
	// maxCardDiff bounds the card's diff; maxDiffFile each file read for it.
	maxCardDiff = 64 << 10
	maxDiffFile = 256 << 10
)

// CardPath names a change on a card: relative to its workspace, prefixed
// with the workspace's name when the session has several.
func CardPath(ws, rel string, multi bool) string {
	p := filepath.ToSlash(rel)
	if multi {
		return filepath.Base(ws) + "/" + p
	}
	return p
}

// cardPath names set i's change rel on a card; a bare git dir's by where
// it lies, since its set's paths name nothing there.
func (cs ChangeSets) cardPath(i int, rel string, multi bool) string {
	if at, ok := cs.gitDirAt(i); ok && at.bare(cs.Workspaces[i]) {
		return at.real(rel)
	}
	return CardPath(cs.Workspaces[i], rel, multi)
}

// CardChange is one change as a card row.
func CardChange(p string, c Change) approval.Change {
	out := approval.Change{Path: p, Op: string(c.Op), Kind: string(c.Kind), Size: c.Size, Target: c.Target, ModeOnly: c.ModeOnly}
	if c.Op != Delete {
		out.Mode = fmt.Sprintf("%04o", c.Mode.Perm())
	}
	if c.OldMode != 0 {
		out.OldMode = fmt.Sprintf("%04o", c.OldMode.Perm())
	}
	return out
}

// StagedDiff is a unified diff of the staged text files against the
// workspace's, cut at maxCardDiff.
func StagedDiff(cs ChangeSets, multi bool) string {
	var b strings.Builder
	for i, s := range cs.Sets {
		for _, c := range s.Changes {
			if c.Kind != File || c.ModeOnly || c.Op == Delete || inGit(c.Path) {
				continue
			}
			if b.Len() >= maxCardDiff {
				b.WriteString("(more changes than the card shows)\n")
				return b.String()
			}
			name := CardPath(cs.Workspaces[i], c.Path, multi)
			var old []byte
			if c.Op == Modify {
				old = readHead(filepath.Join(cs.Workspaces[i], c.Path))
			}
			b.WriteString(textdiff.Unified("a/"+name, "b/"+name, old, readHead(filepath.Join(cs.Uppers[i], c.Path)), 3))
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
