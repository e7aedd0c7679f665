package effect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
)

// An apply's journal is written before the workspace is touched and
// removed once every step is durable. Each step can be done twice, so a
// journal found at start-up (the daemon was killed mid-apply) is finished
// by doing all its steps again: no half-applied tree survives a restart.

type journalFile struct {
	Upper     string   `json:"upper"`
	Workspace string   `json:"workspace"`
	Todo      []Change `json:"todo"`
}

type journal struct{ path string }

func startJournal(req ApplyRequest, todo []Change) (*journal, error) {
	if req.Journal == "" {
		return &journal{}, nil
	}
	b, err := json.Marshal(journalFile{Upper: req.Upper, Workspace: req.Workspace, Todo: todo})
	if err != nil {
		return nil, err
	}
	// A journal found after a crash is finished from the upper layer, so
	// the layer must be on disk before the journal is: the overlay was
	// mounted volatile (sandbox/initproc/stage_linux.go) and its unmount
	// synced nothing.
	if err := syncfs(req.Upper); err != nil {
		return nil, fmt.Errorf("make the staged changes durable before applying them: %w", err)
	}
	if err := atomicfile.Write(req.Journal, b, 0o600); err != nil {
		return nil, fmt.Errorf("write the apply journal: %w", err)
	}
	return &journal{path: req.Journal}, nil
}

// finish makes the applied files durable, then drops the journal.
func (j *journal) finish(workspace string) error {
	if err := syncfs(workspace); err != nil {
		return fmt.Errorf("make the applied changes durable: %w", err)
	}
	if j.path == "" {
		return nil
	}
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("drop the apply journal: %w", err)
	}
	return nil
}

func syncfs(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// Recover finishes the apply a journal at path records, if any; it
// reports whether there was one.
func Recover(ctx context.Context, path string) (bool, error) {
	var jf journalFile
	if found, err := atomicfile.ReadJSON(path, "the apply journal", &jf); !found || err != nil {
		return found, err
	}
	if st, err := os.Stat(jf.Workspace); err != nil || !st.IsDir() {
		os.Remove(path)
		return true, ErrWorkspaceGone
	}
	for _, c := range jf.Todo {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		if err := applyOne(jf.Upper, jf.Workspace, c); err != nil {
			return true, fmt.Errorf("finish applying %s: %w", filepath.Join(jf.Workspace, c.Path), err)
		}
	}
	j := &journal{path: path}
	return true, j.finish(jf.Workspace)
}
