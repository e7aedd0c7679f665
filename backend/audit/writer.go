package audit

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// Result is the outcome of one append.
type Result struct {
	Event Event
	Err   error
}

type request struct {
	ctx  context.Context
	ev   Event
	done chan Result // buffered 1: the writer never blocks on it
	lazy bool        // queued by Queue: nobody waits for the commit
	// written: the caller waits for the commit to reach the database
	// file, not for the fsync (AppendWritten).
	written bool
	// announced is settled when the writer takes the request (see Announce).
	announced *Announcement
	// stamped: the caller left Time zero and it was set when queued; the
	// writer may move it up so that times never run backwards in seq order.
	stamped bool
}

// lazyCommitDelay is how long rows from Queue may wait for an Append to
// share their commit (and its fsync) before they are committed alone.
const lazyCommitDelay = 5 * time.Millisecond

// Append records e and returns it with Seq, Time and hashes filled in, only
// after the transaction holding it has committed with synchronous=FULL: a
// returned event survives a crash of the process or the machine.
//
// Concurrent callers share transactions. If ctx ends before the writer picks
// the event up it is not recorded; if it ends during the commit, Append
// returns ctx.Err() and the event may still be recorded.
func (s *Store) Append(ctx context.Context, e Event) (Event, error) {
	return s.wait(ctx, s.AppendAsync(ctx, e))
}

func (s *Store) wait(ctx context.Context, ch <-chan Result) (Event, error) {
	select {
	case r := <-ch:
		return r.Event, r.Err
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
}

// AppendAsync queues e and returns a channel that receives exactly one
// Result once the event is committed (or has failed). It blocks only while
// the queue is full. Events from one goroutine keep their order.
func (s *Store) AppendAsync(ctx context.Context, e Event) <-chan Result {
	return s.send(ctx, e, false)
}

// Queue is AppendAsync for an event nobody waits for: it is committed with
// the next Append, or on its own within lazyCommitDelay without waiting for
// the disk (the next Append's fsync covers it), so a call's intermediate
// rows share one fsync with its final row instead of taking one each.
// Order with other appends is kept.
func (s *Store) Queue(ctx context.Context, e Event) <-chan Result {
	return s.send(ctx, e, true)
}

// AppendWritten is Append for an event that must be in the database
// before the caller acts, surviving the daemon being killed, but whose
// fsync can come with the next Append: it returns once the commit is
// written to the WAL file, without waiting for the disk. A gatehouse call
// records itself this way before it runs, and its result with Append
// before anyone sees it, so the disk wait overlaps the call's own work.
// Only a crash of the whole machine in between can lose it, along with
// whatever the call itself had not yet flushed.
func (s *Store) AppendWritten(ctx context.Context, e Event) (Event, error) {
	return s.wait(ctx, s.sendReq(ctx, e, func(r *request) { r.written = true }))
}

func (s *Store) send(ctx context.Context, e Event, lazy bool) <-chan Result {
	return s.sendReq(ctx, e, func(r *request) { r.lazy = lazy })
}

func (s *Store) sendReq(ctx context.Context, e Event, set func(*request)) <-chan Result {
	done := make(chan Result, 1)
	ev, err := prepare(e)
	if err != nil {
		done <- Result{Err: err}
		return done
	}
	s.sendMu.RLock()
	defer s.sendMu.RUnlock()
	if s.closed {
		done <- Result{Err: ErrClosed}
		return done
	}
	req := &request{ctx: ctx, ev: ev, done: done}
	if req.ev.Time.IsZero() {
		// When it happened, not when its batch commits: rows queued early
		// in a call (exec.started) would otherwise carry its end time.
		req.ev.Time, req.stamped = time.Now().UTC(), true
	}
	set(req)
	if req.lazy || req.written {
		req.announced = nil // only a durable append settles one
	}
	select {
	case s.reqs <- req:
	case <-ctx.Done():
		done <- Result{Err: ctx.Err()}
	}
	return done
}

// writeLoop is the single writer: it takes whatever is queued (up to
// maxBatch) and commits it in one transaction, so the fsync cost is shared.
func (s *Store) writeLoop() {
	defer close(s.done)
	var (
		batch []*request
		h     hasher
	)
	linger := time.NewTimer(lazyCommitDelay)
	linger.Stop()
	hold := time.NewTimer(s.groupDelay)
	hold.Stop()
	for {
		r, ok := <-s.reqs
		if !ok {
			return
		}
		batch = append(batch[:0], s.took(r))
		open, lazy := true, r.lazy
	drain:
		for len(batch) < s.maxBatch {
			select {
			case r, ok := <-s.reqs:
				if !ok {
					open = false
					break drain
				}
				batch = append(batch, s.took(r))
				lazy = lazy && r.lazy
			default:
				break drain
			}
		}
		if lazy && open {
			// Nobody waits for these rows yet: they commit with the next
			// Append, or alone when the timer fires.
			linger.Reset(lazyCommitDelay)
		wait:
			for lazy && len(batch) < s.maxBatch {
				select {
				case r, ok := <-s.reqs:
					if !ok {
						open = false
						break wait
					}
					batch = append(batch, s.took(r))
					lazy = r.lazy
				case <-linger.C:
					break wait
				}
			}
			linger.Stop()
			// Whatever else is queued already shares the commit.
			for open && len(batch) < s.maxBatch {
				select {
				case r, ok := <-s.reqs:
					if !ok {
						open = false
						continue
					}
					batch = append(batch, s.took(r))
					continue
				default:
				}
				break
			}
		}
		if open && waitsForDisk(batch) {
			batch, open = s.holdForSiblings(batch, hold)
		}
		s.commitBatch(batch, &h)
		clear(batch) // drop references to delivered requests
		if !open {
			return
		}
	}
}

// commitBatch writes one batch. On any failure the whole batch is rolled
// back and every caller gets the error; nothing about the chain is kept in
// memory, since the head is re-read inside each transaction, so a failed
// batch cannot leave a stale "last hash" behind.
func (s *Store) commitBatch(batch []*request, h *hasher) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- Result{Err: err}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	events := make([]Event, len(live))
	durable := false
	floor := s.timeFloor()
	for i, r := range live {
		events[i] = r.ev
		durable = durable || (!r.lazy && !r.written)
		// Queue order is seq order, but two callers may stamp and queue
		// in opposite orders.
		if r.stamped && events[i].Time.Before(floor) {
			events[i].Time = floor
		}
		if events[i].Time.After(floor) {
			floor = events[i].Time
		}
	}
	err := s.setSync(durable)
	if err == nil {
		err = s.insert(context.Background(), events, h)
	}
	if err == nil {
		s.lastTime = floor
		s.commits.Add(1)
	}
	if err != nil {
		err = db.Classify(err)
		s.log.Error("audit batch not recorded", "events", len(events), "err", err)
		for _, r := range live {
			r.done <- Result{Err: err}
		}
		return
	}
	// Publish first, so that once Append returns, every live subscriber
	// already holds the event; publishing never blocks.
	s.publish(events)
	for i, r := range live {
		r.done <- Result{Event: events[i]}
	}
}

// timeFloor is the latest time committed so far (writer goroutine only),
// read from the database once.
func (s *Store) timeFloor() time.Time {
	if !s.lastTimeKnown {
		var ns int64
		err := s.wconn.QueryRowContext(context.Background(), "SELECT time_ns FROM audit_events ORDER BY seq DESC LIMIT 1").Scan(&ns)
		switch {
		case err == nil:
			s.lastTime, s.lastTimeKnown = time.Unix(0, ns).UTC(), true
		case errors.Is(err, sql.ErrNoRows):
			s.lastTimeKnown = true
		}
	}
	return s.lastTime
}

// setSync makes the writer's next commit wait for the disk (FULL) or not
// (NORMAL, in WAL mode: written, fsynced by the next FULL commit). A batch
// waits for the disk whenever one of its callers needs that.
func (s *Store) setSync(durable bool) error {
	if durable == s.durable {
		return nil
	}
	mode := "NORMAL"
	if durable {
		mode = "FULL"
	}
	if _, err := s.wconn.ExecContext(context.Background(), "PRAGMA synchronous="+mode); err != nil {
		return fmt.Errorf("set audit sync mode: %w", err)
	}
	s.durable = durable
	return nil
}

const insertColumns = `INSERT INTO audit_events
	(seq, time_ns, session, call_id, kind, actor, payload, prev_hash, hash) VALUES `

const insertRow = "(?,?,?,?,?,?,?,?,?)"

// rowsPerInsert is the most rows one INSERT statement carries; multi-row
// statements cut the per-row cost of database/sql and cgo several-fold.
// 9 columns x 64 rows stays far under SQLite's bound-parameter limit.
const rowsPerInsert = 64

// insertSQLs[k] inserts 1<<k rows. A batch is split into power-of-two
// chunks so only these few statements exist, and each connection's statement
// cache (db.StmtCacheSize) keeps them all prepared.
var insertSQLs = func() []string {
	var out []string
	for n := 1; n <= rowsPerInsert; n *= 2 {
		out = append(out, insertColumns+strings.TrimSuffix(strings.Repeat(insertRow+",", n), ","))
	}
	return out
}()

// chunkRows returns the largest power of two <= min(n, rowsPerInsert), and its log2.
func chunkRows(n int) (rows, k int) {
	rows = 1
	for rows*2 <= n && rows*2 <= rowsPerInsert {
		rows *= 2
		k++
	}
	return rows, k
}

// insert assigns seq, time and hashes to events (in place) and commits them
// in one transaction on the writer's own connection. Transactions are driven
// by hand so that a failed COMMIT can be followed by an explicit ROLLBACK on
// the same connection, as SQLite advises after SQLITE_FULL or SQLITE_IOERR;
// database/sql's Tx would hand the connection back with the transaction
// possibly still open.
func (s *Store) insert(ctx context.Context, events []Event, h *hasher) (err error) {
	if _, err := s.wconn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		// A transaction left open by an earlier failure would make every
		// BEGIN fail; clear it so the next batch can start.
		_, _ = s.wconn.ExecContext(ctx, "ROLLBACK")
		return fmt.Errorf("begin audit batch: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = s.wconn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	// The head is read under the write lock, so the chain is continued from
	// what is really on disk, whatever happened to earlier batches.
	seq, prev, err := readHead(ctx, s.wconn)
	if err != nil {
		return err
	}
	if err := insertEvents(ctx, s.wconn, events, seq, prev, time.Now(), h); err != nil {
		return err
	}
	if _, err := s.wconn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("commit audit batch: %w", err)
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertEvents chains events after (seq, prev) and inserts them. Zero times
// become now.
func insertEvents(ctx context.Context, tx execer, events []Event, seq int64, prev string, now time.Time, h *hasher) error {
	now = now.UTC()
	prevRaw, err := hex.DecodeString(prev)
	if err != nil {
		return fmt.Errorf("audit head hash: %w", err)
	}
	args := make([]any, 0, 9*min(len(events), rowsPerInsert))
	for i := range events {
		e := &events[i]
		seq++
		e.Seq = seq
		if e.Time.IsZero() {
			e.Time = now
		}
		e.PrevHash = prev
		hashHex, raw := h.sum(prev, e)
		e.Hash = hashHex
		args = append(args, e.Seq, e.Time.UnixNano(), e.Session, e.CallID, e.Kind, e.Actor,
			string(e.Payload), prevRaw, raw[:])
		prev, prevRaw = hashHex, raw[:]
	}
	for start := 0; start < len(events); {
		n, k := chunkRows(len(events) - start)
		if _, err := tx.ExecContext(ctx, insertSQLs[k], args[start*9:(start+n)*9]...); err != nil {
			return fmt.Errorf("insert audit events %d-%d: %w", events[start].Seq, events[start+n-1].Seq, err)
		}
		start += n
	}
	return nil
}

var errBadHash = errors.New("stored hash is not 32 bytes")

func hexHash(raw []byte) (string, error) {
	if len(raw) != 32 {
		return "", errBadHash
	}
	return hex.EncodeToString(raw), nil
}
