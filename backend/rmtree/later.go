package rmtree

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Later removes trees after the caller has moved on. A tree handed to it
// leaves its place at once, renamed into the bin (a directory on the same
// filesystem), so whoever looks there next finds it gone; unlinking it
// happens in the background, one tree at a time. On a filesystem mounted
// with discard, removing even a staged run's few empty directories costs
// milliseconds that a command's answer need not wait for.
type Later struct {
	bin string

	mu      sync.Mutex
	queue   []string // names in bin, oldest first
	running bool
	n       int
	done    *sync.Cond
}

// NewLater removes trees through bin, which it makes when it first needs
// it and removes whenever it has emptied it (so a directory that holds
// the bin looks untouched between removals).
func NewLater(bin string) *Later {
	l := &Later{bin: bin}
	l.done = sync.NewCond(&l.mu)
	return l
}

// Remove takes root/name out of its place now and removes it in the
// background. When it cannot be moved into the bin, or name is not one
// entry of root (only one can be renamed without following a link the
// tree's writer planted), it is removed here and now instead.
func (l *Later) Remove(root, name string) error {
	if l == nil || name != filepath.Base(name) || name == "." || name == ".." {
		return Under(root, name)
	}
	l.mu.Lock()
	l.n++
	binned := fmt.Sprintf("%d-%s", l.n, name)
	err := os.Mkdir(l.bin, 0o700)
	if err == nil || os.IsExist(err) {
		err = os.Rename(filepath.Join(root, name), filepath.Join(l.bin, binned))
	}
	if err != nil {
		if !l.running {
			_ = os.Remove(l.bin) // made just now, and empty
		}
		l.mu.Unlock()
		return Under(root, name)
	}
	l.queue = append(l.queue, binned)
	if !l.running {
		l.running = true
		go l.work()
	}
	l.mu.Unlock()
	return nil
}

// work removes queued trees until none is left, then the bin itself.
func (l *Later) work() {
	l.mu.Lock()
	for len(l.queue) > 0 {
		name := l.queue[0]
		l.queue = l.queue[1:]
		l.mu.Unlock()
		_ = Under(l.bin, name)
		l.mu.Lock()
	}
	// Under the lock, so that no Remove renames into it meanwhile.
	_ = os.Remove(l.bin)
	l.running = false
	l.done.Broadcast()
	l.mu.Unlock()
}

// Wait returns once every tree handed in so far is gone.
func (l *Later) Wait() {
	if l == nil {
		return
	}
	l.mu.Lock()
	for l.running {
		l.done.Wait()
	}
	l.mu.Unlock()
}
