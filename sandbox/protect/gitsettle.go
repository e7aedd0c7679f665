package protect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// SettleIndex makes git's index in root vouch for the secret files by
// their stat alone, before a run that hides them behind stand-ins.
// Git re-reads a file whose modification time is not older than the
// index ("racily clean"), and a stand-in read that way is a change:
// `commit -am` would record it and `reset --hard` would trip on its
// mount point. That happens whenever the index was written in the same
// second as a secret (a test that commits its .env, a person who edits
// and commits at once). So when a secret is not older than the index,
// git refreshes the index itself once that second is past, exactly as
// the person's own `git status` would; git keeps any real race
// (it smudges an entry whose content differs). Outside a repository, or
// when nothing is racy, it costs a few stats.
func SettleIndex(ctx context.Context, root string, secrets []string) error {
	index := filepath.Join(root, ".git", "index")
	ist, err := os.Stat(index)
	if err != nil || len(secrets) == 0 {
		return nil
	}
	var newest time.Time
	for _, s := range secrets {
		if fi, err := os.Lstat(s); err == nil && fi.Mode().IsRegular() && !fi.ModTime().Before(newest) {
			newest = fi.ModTime()
		}
	}
	if newest.IsZero() || newest.Unix() < ist.ModTime().Unix() {
		return nil
	}
	// The index must be written in a later second than the secret. File
	// times come from the kernel's coarse clock, a tick behind ours, so
	// the write is checked and tried again a few ticks later.
	for try := 0; try < 3; try++ {
		wait := time.Until(time.Unix(newest.Unix()+1, 0))
		if try > 0 {
			wait = 20 * time.Millisecond
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		if err := refreshIndex(ctx, root); err != nil {
			return err
		}
		if ist, err := os.Stat(index); err != nil || ist.ModTime().Unix() > newest.Unix() {
			return nil
		}
	}
	return nil
}

// refreshIndex has git refresh root's index and write it even when no
// entry changed (a write is what moves the index's own time on).
func refreshIndex(ctx context.Context, root string) error {
	c := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"update-index", "-q", "--refresh", "--force-write-index")
	c.Dir = root
	c.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	// Exit 1 lists files that differ from the index: that is fine.
	if out, err := c.CombinedOutput(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			return fmt.Errorf("refresh git's index in %s before hiding its secrets: %w (%s)", root, err, firstLine(out))
		}
	}
	return nil
}

func firstLine(b []byte) string {
	for i, c := range b {
		if c == '\n' {
			return string(b[:i])
		}
	}
	return string(b)
}

// SettleIndexSoon is SettleIndex at best effort, bounded in time: a
// repository git cannot refresh now (another git holds its lock) runs as
// it is, and the landing check still holds what a run would record
// through a stand-in.
func SettleIndexSoon(root string, secrets []string) {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	_ = SettleIndex(ctx, root, secrets)
}

// settleTimeout bounds the wait for a racy second and git's refresh.
const settleTimeout = 5 * time.Second
