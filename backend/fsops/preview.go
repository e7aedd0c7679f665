package fsops

import (
	"context"

	"github.com/gatehouse-dev/gatehouse/backend/textdiff"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// Preview is what a write or edit would do, for the approval card; it is
// computed without touching the file.
type Preview struct {
	Path         string          `json:"path"`
	Created      bool            `json:"created"`
	OldBytes     int64           `json:"old_bytes"`
	NewBytes     int64           `json:"new_bytes"`
	Mode         string          `json:"mode"`
	Replacements int             `json:"replacements,omitempty"`
	Diff         textdiff.Result `json:"diff"`
	// Current is what the file holds now (nil when it is new or too
	// large to read whole).
	Current []byte `json:"-"`
}

// PreviewWrite shows the diff WriteFile(p, content) would make. It fails
// for the same reasons WriteFile would, before any approval is asked.
func PreviewWrite(ctx context.Context, roots *workspace.Roots, p workspace.Path, content []byte) (Preview, error) {
	if len(content) > MaxWriteBytes {
		return Preview{}, errorf(ErrTooLarge, "content for %s is %d bytes; the limit is %d (10 MiB); write it in a command instead", agentPath(roots, p), len(content), MaxWriteBytes)
	}
	cur, err := loadCurrent(ctx, roots, p, true)
	if err != nil {
		return Preview{}, err
	}
	pv := Preview{Path: agentPath(roots, p), Created: !cur.exists, NewBytes: int64(len(content)), Mode: modeString(cur.mode)}
	if cur.info != nil {
		pv.OldBytes = cur.info.Size()
	}
	if cur.tooLarge {
		pv.Diff = textdiff.Result{TooLarge: true, Text: "existing file is too large to diff\n"}
		return pv, nil
	}
	pv.Diff, pv.Current = diffFor(roots, p, cur.data, content, !cur.exists), cur.data
	return pv, nil
}

// PreviewEdit shows the diff EditFile would make, with the same checks.
func PreviewEdit(ctx context.Context, roots *workspace.Roots, p workspace.Path, old, new string, replaceAll bool) (Preview, error) {
	plan, err := planEdit(ctx, roots, p, old, new, replaceAll)
	if err != nil {
		return Preview{}, err
	}
	return Preview{
		Path:         agentPath(roots, p),
		OldBytes:     int64(len(plan.cur.data)),
		NewBytes:     int64(len(plan.after)),
		Mode:         modeString(plan.cur.mode),
		Replacements: plan.count,
		Diff:         diffFor(roots, p, plan.cur.data, plan.after, false),
		Current:      plan.cur.data,
	}, nil
}

// diffFor names the sides git-style (a/, b/) for workspace-relative
// paths and plainly for absolute ones; a new file is diffed from /dev/null.
func diffFor(roots *workspace.Roots, p workspace.Path, before, after []byte, created bool) textdiff.Result {
	name := agentPath(roots, p)
	aName, bName := "a/"+name, "b/"+name
	if name == p.Abs {
		aName, bName = name, name
	}
	if created {
		aName = "/dev/null"
	}
	return textdiff.Diff(aName, bName, before, after, textdiff.Options{})
}
