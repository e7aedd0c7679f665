package workspace

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// One goroutine atomically exchanges a real directory with a symlink to
// outside over and over; another resolves and reads through it thousands
// of times. The outside canary must never be read.
func TestSymlinkFlipRace(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		ws, outside := tree(t)
		must(t, os.Mkdir(filepath.Join(ws, "d"), 0o755))
		write(t, filepath.Join(ws, "d", "secret"), "inside")
		must(t, os.Symlink(outside, filepath.Join(ws, "flip")))
		r := newRoots(t, ws)

		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(ws, "d"), unix.AT_FDCWD, filepath.Join(ws, "flip"), unix.RENAME_EXCHANGE); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		var reads, refusals int
		for range 5000 {
			p, err := r.Resolve("d/secret")
			if err != nil {
				refusals++
				continue
			}
			f, err := r.OpenRead(p)
			if err != nil {
				refusals++
				continue
			}
			b, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) == "CANARY" {
				stop.Store(true)
				wg.Wait()
				t.Fatal("read the file outside the workspace")
			}
			reads++
		}
		stop.Store(true)
		wg.Wait()
		t.Logf("%d reads inside, %d refusals", reads, refusals)
	})
}
