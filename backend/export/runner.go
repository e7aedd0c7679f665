package export

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

// Defaults for Options' zero values.
const (
	DefaultMaxBacklog = 1_000_000
	DefaultBatch      = audit.MaxLimit
	DefaultPoll       = 200 * time.Millisecond
	DefaultMinBackoff = 250 * time.Millisecond
	// DefaultMaxBackoff is short: retrying a collector that is down costs
	// one refused connection, and a short wait sends the backlog soon after
	// it comes back.
	DefaultMaxBackoff = 5 * time.Second
	DefaultSaveEvery  = time.Second
)

// Options configure a Runner.
type Options struct {
	Audit  *audit.Store
	DB     *sql.DB // the database the cursors live in (the audit's)
	Logger *slog.Logger
	Sinks  []Sink
	// MaxBacklog bounds how far (in events) a sink may fall behind; past it
	// the oldest part is skipped with an export.dropped row.
	MaxBacklog int64
	Batch      int           // events per delivery, at most audit.MaxLimit
	Poll       time.Duration // how often a caught-up sink looks for new events
	MinBackoff time.Duration
	MaxBackoff time.Duration
	SaveEvery  time.Duration // how often a moving cursor is saved; default 1 s
}

// Runner follows the audit timeline for each sink in its own goroutine.
type Runner struct {
	o      Options
	states []*sinkState
}

// State says how a sink is doing.
type State string

// The states a sink is in.
const (
	StateStarting State = "starting" // its cursor is not read yet
	StateCurrent  State = "current"  // everything written so far is delivered
	StateSending  State = "sending"  // delivering a backlog
	StateFailing  State = "failing"  // the last delivery failed; retrying with backoff
)

// Status is one sink's export state, as GET /api/v1/export shows it.
type Status struct {
	Sink        SinkName   `json:"sink"`
	Target      string     `json:"target"`
	State       State      `json:"state"`
	SentSeq     int64      `json:"sent_seq"`
	SentAt      *time.Time `json:"sent_at,omitempty"`
	Backlog     int64      `json:"backlog"`
	Dropped     int64      `json:"dropped"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
	Failures    int        `json:"failures"` // in a row
}

type sinkState struct {
	sink Sink
	mu   sync.Mutex
	st   Status
}

func (s *sinkState) update(f func(*Status)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.st)
}

// New prepares a runner; Run starts it.
func New(o Options) *Runner {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBacklog <= 0 {
		o.MaxBacklog = DefaultMaxBacklog
	}
	if o.Batch <= 0 || o.Batch > audit.MaxLimit {
		o.Batch = DefaultBatch
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.SaveEvery <= 0 {
		o.SaveEvery = DefaultSaveEvery
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.MinBackoff)
	}
	r := &Runner{o: o}
	for _, s := range o.Sinks {
		r.states = append(r.states, &sinkState{sink: s, st: Status{Sink: s.Name(), Target: s.Target(), State: StateStarting}})
	}
	return r
}

// Run follows the audit for every sink until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range r.states {
		wg.Go(func() { r.follow(ctx, s) })
	}
	wg.Wait()
}

// Status is every sink's state, with the backlog measured now.
func (r *Runner) Status(ctx context.Context) ([]Status, error) {
	head, _, err := r.o.Audit.Head(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(r.states))
	for _, s := range r.states {
		s.mu.Lock()
		st := s.st
		s.mu.Unlock()
		st.Backlog = max(0, head-st.SentSeq)
		out = append(out, st)
	}
	return out, nil
}

// follow is one sink's loop: read the next batch after the cursor, deliver
// it, move the cursor; on failure wait (doubling, up to MaxBackoff) and
// send from the same place again.
func (r *Runner) follow(ctx context.Context, s *sinkState) {
	log := r.o.Logger.With("sink", string(s.sink.Name()))
	var cur cursor
	backoff := r.o.MinBackoff
	fail := func(err error) {
		var n int
		s.update(func(st *Status) {
			now := time.Now().UTC()
			st.State, st.LastError, st.LastErrorAt = StateFailing, err.Error(), &now
			st.Failures++
			n = st.Failures
		})
		// Say it when it starts failing and now and then after, not once
		// per retry.
		if n == 1 || n%60 == 0 {
			log.Warn("audit export failing; retrying, nothing is lost until the backlog bound", "target", s.sink.Target(), "failures", n, "err", err)
		}
		sleep(ctx, backoff)
		backoff = min(backoff*2, r.o.MaxBackoff)
	}
	for {
		var err error
		if cur, err = loadCursor(ctx, r.o.DB, s.sink.Name()); err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		fail(err)
	}
	s.update(func(st *Status) {
		st.SentSeq, st.Dropped, st.State = cur.Sent, cur.Dropped, StateSending
		if !cur.SentAt.IsZero() {
			t := cur.SentAt
			st.SentAt = &t
		}
	})
	batch := r.o.Batch
	// The cursor is saved at most every SaveEvery while it moves, and once
	// more on the way out: each save is a write transaction that the
	// audit's own writes would wait behind. A crash resends at most that
	// much (at least once, as promised).
	saved, savedSent := time.Now(), cur.Sent
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if err := saveCursor(ctx, r.o.DB, s.sink.Name(), cur); err != nil {
			log.Warn("could not save the export cursor on the way out; the last deliveries will be sent again", "err", err)
		}
	}()
	for ctx.Err() == nil {
		head, _, err := r.o.Audit.Head(ctx)
		if err != nil {
			fail(err)
			continue
		}
		if head-cur.Sent > r.o.MaxBacklog {
			if cur, err = r.drop(ctx, s, cur, head); err != nil {
				fail(err)
				continue
			}
		}
		evs, err := r.o.Audit.Query(ctx, audit.Query{After: cur.Sent, Limit: batch})
		if err != nil {
			fail(err)
			continue
		}
		if len(evs) == 0 {
			if cur.Sent != savedSent {
				// Caught up with a cursor not yet saved (a save failed, or
				// came too soon): save it now, not on the next event.
				if err := saveCursor(ctx, r.o.DB, s.sink.Name(), cur); err != nil {
					fail(err)
					continue
				}
				saved, savedSent = time.Now(), cur.Sent
			}
			s.update(func(st *Status) { st.State, st.Failures = StateCurrent, 0 })
			sleep(ctx, r.o.Poll)
			continue
		}
		if err := s.sink.Send(ctx, evs); err != nil {
			if ctx.Err() != nil {
				return
			}
			if errors.Is(err, errTooLarge) && batch > 1 {
				batch = max(1, batch/2)
			}
			fail(err)
			continue
		}
		cur.Sent, cur.SentAt = evs[len(evs)-1].Seq, time.Now().UTC()
		if time.Since(saved) >= r.o.SaveEvery {
			if err := saveCursor(ctx, r.o.DB, s.sink.Name(), cur); err != nil {
				// Delivered but not recorded: what was sent since the last
				// save goes again after a restart (at least once).
				fail(err)
				continue
			}
			saved, savedSent = time.Now(), cur.Sent
		}
		recovered := false
		s.update(func(st *Status) {
			recovered = st.Failures > 0
			sentAt := cur.SentAt
			st.SentSeq, st.SentAt, st.Failures = cur.Sent, &sentAt, 0
			st.State = StateSending
		})
		if recovered {
			log.Info("audit export delivering again", "target", s.sink.Target(), "sent_seq", cur.Sent)
		}
		backoff = r.o.MinBackoff
		full := len(evs) == batch
		// A batch halved for a 413 grows back while the collector takes it.
		batch = min(batch*2, r.o.Batch)
		if !full {
			sleep(ctx, r.o.Poll)
		}
	}
}

// drop moves the cursor past the oldest backlog so that 90% of MaxBacklog
// events remain, and says so in the audit first: if the cursor then fails
// to save, the next round drops again (and says so again) rather than skip
// events silently. The 10% of room keeps the export.dropped row itself (and
// the next few) from tipping the backlog over again: without it, a sink
// that stays down would drop one event and write one row per retry.
func (r *Runner) drop(ctx context.Context, s *sinkState, cur cursor, head int64) (cursor, error) {
	through := head - r.o.MaxBacklog*9/10
	n := through - cur.Sent
	payload, err := json.Marshal(map[string]any{
		"sink": string(s.sink.Name()), "target": s.sink.Target(), "after_seq": cur.Sent, "through_seq": through,
		"count": n, "max_backlog": r.o.MaxBacklog,
	})
	if err != nil {
		return cur, fmt.Errorf("encode export.dropped: %w", err)
	}
	if _, err := r.o.Audit.Append(ctx, audit.Event{Kind: "export.dropped", Actor: audit.ActorSystem, Payload: payload}); err != nil {
		return cur, fmt.Errorf("record export.dropped: %w", err)
	}
	next := cur
	next.Sent, next.Dropped = through, cur.Dropped+n
	if err := saveCursor(ctx, r.o.DB, s.sink.Name(), next); err != nil {
		return cur, err
	}
	r.o.Logger.Warn("audit export fell behind its bound; skipped the oldest events (the audit keeps them)",
		"sink", string(s.sink.Name()), "skipped", n, "after_seq", cur.Sent, "through_seq", through)
	s.update(func(st *Status) { st.SentSeq, st.Dropped = next.Sent, next.Dropped })
	return next, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
