package effect

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/textdiff"
)

// What an effect card shows of a change set: each change as a card row,
// and a diff of the text files it changed.

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
