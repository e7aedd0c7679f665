package audit

import (
	"context"
	"sync/atomic"
	"time"
)

// groupCommitDelay bounds how long a commit that waits for the disk holds
// on for announced appends (see Announce); Options.GroupCommitDelay
// overrides it. On the machines measured an fsync costs the daemon about
// 0.3 ms of CPU, far more than a millisecond's wait costs a reader.
const groupCommitDelay = time.Millisecond

// Announce tells the writer that the caller will make a durable Append
// shortly (a quick call about to record its result), so that a commit
// about to wait for the disk holds on for it, up to groupCommitDelay, and
// the two share one fsync. This is PostgreSQL's commit_delay with
// commit_siblings: only a commit with announced siblings waits, so a lone
// caller never does.
//
// The announcement's own Append settles it. Call Settle when the caller no
// longer expects to append soon (always, on every path: it is a no-op once
// settled).
func (s *Store) Announce() *Announcement {
	a := &Announcement{s: s}
	s.announced.Add(1)
	return a
}

// Announcement is a durable append announced ahead (see Announce).
type Announcement struct {
	s       *Store
	settled atomic.Bool
}

// Append is Store.Append for the announced event: the writer taking it
// settles the announcement.
func (a *Announcement) Append(ctx context.Context, e Event) (Event, error) {
	return a.s.wait(ctx, a.s.sendReq(ctx, e, func(r *request) { r.announced = a }))
}

// Settle withdraws the announcement.
func (a *Announcement) Settle() {
	if a != nil && a.settled.CompareAndSwap(false, true) {
		a.s.announced.Add(-1)
		// Wake a holding writer to look again.
		select {
		case a.s.settled <- struct{}{}:
		default:
		}
	}
}

// holdForSiblings adds requests to a batch that waits for the disk while
// announced appends are still to come, up to the group commit delay. It
// returns false if the queue was closed meanwhile.
func (s *Store) holdForSiblings(batch []*request, timer *time.Timer) ([]*request, bool) {
	if s.announced.Load() <= 0 {
		return batch, true
	}
	timer.Reset(s.groupDelay)
	defer timer.Stop()
	for s.announced.Load() > 0 && len(batch) < s.maxBatch {
		select {
		case r, ok := <-s.reqs:
			if !ok {
				return batch, false
			}
			batch = append(batch, s.took(r))
		case <-s.settled:
		case <-timer.C:
			return batch, true
		}
	}
	return batch, true
}

// took is called by the writer for every request it takes off the queue.
func (s *Store) took(r *request) *request {
	r.announced.Settle()
	return r
}

// waitsForDisk: some caller in batch waits for the disk, so the commit
// runs with synchronous=FULL.
func waitsForDisk(batch []*request) bool {
	for _, r := range batch {
		if !r.lazy && !r.written {
			return true
		}
	}
	return false
}
