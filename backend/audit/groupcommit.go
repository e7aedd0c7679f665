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
// The announcement travels in the returned context; the first Append made
// with it settles it. Call done when the caller no longer expects to
// append soon (always, on every path: it is a no-op once settled).
func (s *Store) Announce(ctx context.Context) (_ context.Context, done func()) {
	a := &announcement{s: s}
	s.announced.Add(1)
	return context.WithValue(ctx, announcementKey{}, a), a.settle
}

type announcementKey struct{}

type announcement struct {
	s       *Store
	settled atomic.Bool
}

func (a *announcement) settle() {
	if a != nil && a.settled.CompareAndSwap(false, true) {
		a.s.announced.Add(-1)
		// Wake a holding writer to look again.
		select {
		case a.s.settled <- struct{}{}:
		default:
		}
	}
}

// announcementFor is the announcement a durable append made with ctx
// settles, if any.
func (s *Store) announcementFor(ctx context.Context) *announcement {
	a, _ := ctx.Value(announcementKey{}).(*announcement)
	if a == nil || a.s != s {
		return nil
	}
	return a
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
	r.announced.settle()
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
