package fsops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// newFileMode is the mode of files write_file creates.
const newFileMode fs.FileMode = 0o644

// current is what is at a path before a write: whether a file exists, its
// mode, its stat (to notice a concurrent change) and, when asked for, its
// content.
type current struct {
	exists   bool
	mode     fs.FileMode
	info     fs.FileInfo
	data     []byte
	tooLarge bool // content not loaded: over MaxWriteBytes
}

// loadCurrent refuses paths that name a symlink or anything but a regular
// file, so writes never go through a link and never replace a directory.
func loadCurrent(ctx context.Context, roots *workspace.Roots, p workspace.Path, wantData bool) (current, error) {
	if err := ctx.Err(); err != nil {
		return current{}, err
	}
	if p.Symlink {
		return current{}, errorf(ErrSymlinkTarget, "path %s is a symlink to %s; write to %s instead so it is clear which file changes", p.Input, p.Abs, agentPath(roots, p))
	}
	fi, err := roots.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return current{mode: newFileMode}, nil
	}
	if err != nil {
		return current{}, err
	}
	if !fi.Mode().IsRegular() {
		return current{}, errorf(workspace.ErrNotRegular, "%s is %s; only regular files can be written", agentPath(roots, p), workspace.KindName(fi.Mode()))
	}
	cur := current{exists: true, mode: fi.Mode().Perm(), info: fi}
	if !wantData {
		return cur, nil
	}
	f, err := roots.OpenRead(p)
	if err != nil {
		return current{}, err
	}
	defer f.Close()
	if cur.info, err = f.Stat(); err != nil {
		return current{}, fmt.Errorf("cannot stat %s: %w", p.Abs, err)
	}
	if cur.info.Size() > MaxWriteBytes {
		cur.tooLarge = true
		return cur, nil
	}
	cur.data, err = io.ReadAll(io.LimitReader(f, MaxWriteBytes+1))
	if err != nil {
		return current{}, fmt.Errorf("cannot read %s: %w", p.Abs, err)
	}
	if len(cur.data) > MaxWriteBytes {
		cur.tooLarge, cur.data = true, nil
	}
	return cur, nil
}

// replace writes data over p atomically. With expect set, it refuses when
// the file is no longer the one that was read.
func replace(ctx context.Context, roots *workspace.Roots, p workspace.Path, data []byte, mode fs.FileMode, expect fs.FileInfo) error {
	if len(data) > MaxWriteBytes {
		return errorf(ErrTooLarge, "the new content of %s is %d bytes; the limit is %d (10 MiB)", agentPath(roots, p), len(data), MaxWriteBytes)
	}
	if err := roots.MkdirAll(p.Parent(), 0o755); err != nil {
		return err
	}
	a, err := roots.CreateAtomic(p, mode)
	if err != nil {
		return err
	}
	defer a.Abort()
	if _, err := a.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", agentPath(roots, p), err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if expect != nil {
		now, err := a.Target()
		if err != nil || !sameFile(expect, now) {
			return errorf(ErrChanged, "%s changed while it was being edited; read it again and retry", agentPath(roots, p))
		}
	}
	return a.Commit()
}

func sameFile(a, b fs.FileInfo) bool {
	ad, ai, ok1 := workspace.FileID(a)
	bd, bi, ok2 := workspace.FileID(b)
	return ok1 && ok2 && ad == bd && ai == bi && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

func modeString(m fs.FileMode) string { return fmt.Sprintf("%#o", m.Perm()) }
