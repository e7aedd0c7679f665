package approval

import (
	"context"
	"time"
)

// The local decision wins a race. A person who answers a card at the
// computer (window, tray, notification, CLI) while a device they left
// an exposure open to answers it too is at the computer: what they did
// there is what they meant. Decisions cannot be taken back once the call
// resumes, so a device's decision is held for a short window before it
// takes effect; a decision made on the computer inside that window
// replaces it, and the device is told. One made on the computer before
// the device's arrives wins as any first decision does, and the device
// is told the same. The window is well under the 50 ms a decision
// through an exposure may take to resume the call, and costs nothing to
// a decision made on the computer, which never waits.

// DefaultLocalWins is how long a device's decision waits for one made
// on the computer.
const DefaultLocalWins = 20 * time.Millisecond

// ErrDecidedLocally: the card was decided on the computer, before the
// device's decision or inside its window. It is an ErrNotFound too.
var ErrDecidedLocally error = notPending("this card was decided on the computer, so the decision made here was not used")

// held is a device's decision waiting out the local-wins window.
type held struct {
	d Decision
	// gone closes when something else settled the card first; err then
	// says what the device is told.
	gone chan struct{}
	err  error
}

// isLocal: a person's decision made on the computer, not through an
// exposure.
func isLocal(d Decision) bool { return d.By == "human" && d.Exposure == "" }

// decideRemote holds a device's decision on w for the window, then
// settles it unless something settled the card first. A second device's
// decision during the window is refused: the first device's stands.
func (b *Broker) decideRemote(ctx context.Context, w *waiter, d Decision) (Request, error) {
	id := w.req.ID
	h := &held{d: d, gone: make(chan struct{})}
	b.mu.Lock()
	switch {
	case b.pending[id] != w:
		b.mu.Unlock()
		return Request{}, b.notPendingError(ctx, id, d)
	case w.held != nil:
		b.mu.Unlock()
		return Request{}, ErrSettled
	}
	w.held = h
	b.mu.Unlock()
	b.logger.Debug("a device's decision waits for one made on the computer", "approval", id, "exposure", d.Exposure, "window", b.localWins)
	select {
	case <-b.after(b.localWins):
	case <-h.gone:
	}
	b.mu.Lock()
	if b.pending[id] != w || w.held != h {
		b.mu.Unlock()
		// Settled meanwhile: override closes gone once err is set.
		<-h.gone
		return Request{}, h.err
	}
	delete(b.pending, id)
	w.held = nil
	b.mu.Unlock()
	// The device may have gone during the window; its decision stands.
	b.settle(context.WithoutCancel(ctx), w, d)
	return w.req, nil
}

// override tells the device whose decision h was held on w that d,
// settled as status, took its place, and records the device's decision
// in the audit (approval.overridden) so it is not lost.
func (b *Broker) override(ctx context.Context, w *waiter, h *held, d Decision, status string) {
	switch {
	case isLocal(d):
		h.err = ErrDecidedLocally
	case status == "withdrawn":
		h.err = ErrWithdrawn
	default:
		h.err = ErrSettled
	}
	b.emit(ctx, "approval.overridden", "human", w.req.Session, w.req.CallID, map[string]any{
		"approval": w.req.ID, "allow": h.d.Allow, "message": h.d.Message, "exposure": h.d.Exposure, "device": h.d.Device,
		"by": d.By, "status": status,
	})
	close(h.gone)
}

// notPendingError says why id is not pending to the decision d: a
// device is told when the computer decided first.
func (b *Broker) notPendingError(ctx context.Context, id string, d Decision) error {
	if !isLocal(d) {
		b.mu.Lock()
		_, local := b.local[id]
		b.mu.Unlock()
		if local {
			return ErrDecidedLocally
		}
	}
	return b.settledError(ctx, id)
}

// rememberLocal notes, under b.mu, that id was decided on the computer,
// until the card would have expired; older notes are dropped.
func (b *Broker) rememberLocal(id string, until time.Time) {
	now := time.Now()
	for k, t := range b.local {
		if now.After(t) {
			delete(b.local, k)
		}
	}
	b.local[id] = until
}
