package audit

import (
	"bytes"
	"context"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// Problem names what is wrong with the first bad row.
type Problem string

const (
	// ProblemMissing: a seq is absent (a row was deleted); BadSeq is the
	// first missing seq.
	ProblemMissing Problem = "missing"
	// ProblemOutOfOrder: a seq repeats or goes backwards (exports only).
	ProblemOutOfOrder Problem = "out of order"
	// ProblemPrevHash: the row's prev_hash is not the previous row's hash.
	ProblemPrevHash Problem = "prev_hash mismatch"
	// ProblemPayload: the stored payload is not canonical JSON.
	ProblemPayload Problem = "payload not canonical"
	// ProblemHash: the row's content does not hash to its stored hash.
	ProblemHash Problem = "hash mismatch"
	// ProblemUnreadable: an export line could not be parsed.
	ProblemUnreadable Problem = "unreadable"
)

// Report is the outcome of a chain verification.
//
// The chain proves every row up to LastSeq is as written; it cannot show
// that rows after the last one were cut off. Keep LastSeq/LastHash from an
// earlier report (or an export) to detect that.
type Report struct {
	OK       bool
	Checked  int64  // rows that verified
	FirstSeq int64  // first verified seq (0 if none)
	LastSeq  int64  // last verified seq (0 if none)
	LastHash string // hash of the last verified row, GenesisHash if none
	// FromGenesis is true when the first row checked was seq 1 chained to
	// GenesisHash. An export that starts later is verified from its first
	// line's prev_hash, which it takes on trust.
	FromGenesis bool

	BadSeq  int64   // first bad seq, when !OK
	Problem Problem // what is wrong with it
	Detail  string  // one plain sentence for people
}

func (r Report) String() string {
	if r.OK {
		return fmt.Sprintf("audit chain ok: %s verified (seq %d-%d), last hash %s", plural.Count(r.Checked, "event", "events"), r.FirstSeq, r.LastSeq, r.LastHash)
	}
	return fmt.Sprintf("audit chain broken at seq %d (%s): %s; %s before it verified", r.BadSeq, r.Problem, r.Detail, plural.Count(r.Checked, "event", "events"))
}

// chainChecker verifies events one at a time in constant memory.
type chainChecker struct {
	h       hasher
	r       Report
	nextSeq int64 // 0: take the first event's seq (exports)
	prev    string
	started bool
}

func newChainChecker(fromGenesis bool) *chainChecker {
	c := &chainChecker{r: Report{OK: true, LastHash: GenesisHash}, prev: GenesisHash}
	if fromGenesis {
		c.nextSeq = 1
	}
	return c
}

func (c *chainChecker) fail(seq int64, p Problem, format string, args ...any) bool {
	c.r.OK, c.r.BadSeq, c.r.Problem, c.r.Detail = false, seq, p, fmt.Sprintf(format, args...)
	return false
}

// check verifies e against the chain so far; false means the report is final.
func (c *chainChecker) check(e *Event) bool {
	if !c.started && c.nextSeq == 0 {
		// An export that does not start at seq 1 is anchored on its own
		// first prev_hash.
		c.nextSeq = e.Seq
		if e.Seq != 1 {
			c.prev = e.PrevHash
		}
	}
	switch {
	case e.Seq > c.nextSeq:
		if c.nextSeq == e.Seq-1 {
			return c.fail(c.nextSeq, ProblemMissing, "event %d is missing; it was deleted", c.nextSeq)
		}
		return c.fail(c.nextSeq, ProblemMissing, "events %d to %d are missing; they were deleted", c.nextSeq, e.Seq-1)
	case e.Seq < c.nextSeq:
		return c.fail(e.Seq, ProblemOutOfOrder, "event %d appears after event %d", e.Seq, c.nextSeq-1)
	}
	if e.PrevHash != c.prev {
		return c.fail(e.Seq, ProblemPrevHash, "event %d does not chain to the event before it; it or its predecessor was altered", e.Seq)
	}
	canon, err := Canonicalize(e.Payload)
	if err != nil {
		return c.fail(e.Seq, ProblemPayload, "event %d has a payload that is not valid JSON; it was altered", e.Seq)
	}
	if !bytes.Equal(canon, e.Payload) {
		return c.fail(e.Seq, ProblemPayload, "event %d has a payload that is not in canonical form; it was altered", e.Seq)
	}
	if got, _ := c.h.sum(c.prev, e); got != e.Hash {
		return c.fail(e.Seq, ProblemHash, "event %d does not match its hash; it was altered", e.Seq)
	}
	if !c.started {
		c.started = true
		c.r.FirstSeq = e.Seq
		c.r.FromGenesis = e.Seq == 1 && e.PrevHash == GenesisHash
	}
	c.r.Checked++
	c.r.LastSeq, c.r.LastHash = e.Seq, e.Hash
	c.prev = e.Hash
	c.nextSeq = e.Seq + 1
	return true
}

// Verify walks the whole chain in one read snapshot and reports the first bad
// row. The error is for failures to read; a broken chain is a Report with
// OK false.
func (s *Store) Verify(ctx context.Context) (Report, error) {
	rows, err := s.db.QueryContext(ctx, selectSQL+" ORDER BY seq ASC")
	if err != nil {
		return Report{}, db.Classify(fmt.Errorf("read audit events: %w", err))
	}
	defer rows.Close()
	c := newChainChecker(true)
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return Report{}, err
		}
		if !c.check(&e) {
			return c.r, nil
		}
	}
	if err := rows.Err(); err != nil {
		return Report{}, db.Classify(fmt.Errorf("read audit events: %w", err))
	}
	return c.r, nil
}
