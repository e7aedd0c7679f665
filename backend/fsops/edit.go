package fsops

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/backend/textdiff"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// EditResult reports a completed edit and what it changed.
type EditResult struct {
	Path         string          `json:"path"`
	Replacements int             `json:"replacements"`
	Bytes        int64           `json:"bytes"`
	Diff         textdiff.Result `json:"diff"`
}

// EditFile replaces old with new in the file at p. old must occur exactly
// once unless replaceAll is set. The write is atomic and refused if the
// file changed since it was read.
func EditFile(ctx context.Context, roots *workspace.Roots, p workspace.Path, old, new string, replaceAll bool) (EditResult, error) {
	plan, err := planEdit(ctx, roots, p, old, new, replaceAll)
	if err != nil {
		return EditResult{}, err
	}
	if err := replace(ctx, roots, p, plan.after, plan.cur.mode, plan.cur.info); err != nil {
		return EditResult{}, err
	}
	return EditResult{
		Path:         agentPath(roots, p),
		Replacements: plan.count,
		Bytes:        int64(len(plan.after)),
		Diff:         diffFor(roots, p, plan.cur.data, plan.after, false),
	}, nil
}

type editPlan struct {
	cur   current
	after []byte
	count int
}

func planEdit(ctx context.Context, roots *workspace.Roots, p workspace.Path, old, new string, replaceAll bool) (editPlan, error) {
	name := agentPath(roots, p)
	switch {
	case old == "":
		return editPlan{}, errorf(ErrBadRequest, "old text is empty; to create or overwrite %s use write_file", name)
	case old == new:
		return editPlan{}, errorf(ErrBadRequest, "old and new text are the same; nothing would change in %s", name)
	case !utf8.ValidString(old) || !utf8.ValidString(new):
		return editPlan{}, errorf(ErrBadRequest, "old and new text must be valid UTF-8")
	}
	cur, err := loadCurrent(ctx, roots, p, true)
	if err != nil {
		return editPlan{}, err
	}
	switch {
	case !cur.exists:
		return editPlan{}, errorf(ErrBadRequest, "%s does not exist; create it with write_file", name)
	case cur.tooLarge:
		return editPlan{}, errorf(ErrTooLarge, "%s is %d bytes; edit_file handles files up to %d bytes (10 MiB)", name, cur.info.Size(), MaxWriteBytes)
	case looksBinary(cur.data[:min(len(cur.data), sniffBytes)], len(cur.data) <= sniffBytes):
		return editPlan{}, errorf(ErrBinary, "%s is a binary file; edit_file only changes text", name)
	}
	text := string(cur.data)
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return editPlan{}, errorf(ErrNotFound, "old text not found in %s; read the file again and copy the text exactly, including whitespace and indentation", name)
	case n > 1 && !replaceAll:
		return editPlan{}, errorf(ErrAmbiguous, "old text matches %d times in %s; add more surrounding context to make it unique, or set replace_all", n, name)
	}
	limit := 1
	if replaceAll {
		limit = -1
	}
	after := strings.Replace(text, old, new, limit)
	if len(after) > MaxWriteBytes {
		return editPlan{}, errorf(ErrTooLarge, "after the edit %s would be %d bytes; the limit is %d (10 MiB)", name, len(after), MaxWriteBytes)
	}
	return editPlan{cur: cur, after: []byte(after), count: n}, nil
}
