package launch

import (
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Zygotes are one session's zygotes: one for the layout in use, started
// the first time a sandbox of that layout is needed. A zygote of a
// layout the session no longer uses (the workspace gained a hidden path,
// a call asked for the host's network) stops once its last sandbox is
// over.
type Zygotes struct {
	mu      sync.Mutex
	zygotes map[string]*zygoteUse
	current string
	closed  bool
}

type zygoteUse struct {
	z *Zygote
	// sandboxes started from it and not yet over (ready or running).
	sandboxes int
}

// Acquire returns the zygote of layout, started with start if need be
// (or when the last one is gone), with one more sandbox counted against
// it; Release counts it over.
func (zs *Zygotes) Acquire(layout string, start func() (*Zygote, error)) (*Zygote, error) {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	if zs.closed {
		return nil, sandbox.ErrClosed
	}
	use := zs.zygotes[layout]
	if use != nil && use.z.Gone() {
		delete(zs.zygotes, layout)
		use = nil
	}
	if use == nil {
		// Started under the lock: a session builds its sandboxes one at
		// a time in the background, and a second zygote for the same
		// layout would only be stopped again.
		z, err := start()
		if err != nil {
			return nil, err
		}
		use = &zygoteUse{z: z}
		if zs.zygotes == nil {
			zs.zygotes = map[string]*zygoteUse{}
		}
		zs.zygotes[layout] = use
	}
	zs.current = layout
	use.sandboxes++
	zs.retireLocked()
	return use.z, nil
}

// Release counts one of z's sandboxes over.
func (zs *Zygotes) Release(z *Zygote) {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	if use := zs.zygotes[z.layout]; use != nil && use.z == z {
		use.sandboxes--
		zs.retireLocked()
		return
	}
	// Already forgotten (it was gone and replaced): nothing to count.
}

// retireLocked stops the zygotes no sandbox uses any more, but the
// current layout's while the session is open.
func (zs *Zygotes) retireLocked() {
	for layout, use := range zs.zygotes {
		if use.sandboxes <= 0 && (zs.closed || layout != zs.current) {
			use.z.Close()
			delete(zs.zygotes, layout)
		}
	}
}

// Close stops the zygotes: at once those with no sandbox left, the
// others when their last one is over (a run in progress finishes, as
// with a sandbox of its own).
func (zs *Zygotes) Close() error {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	zs.closed = true
	zs.retireLocked()
	return nil
}
