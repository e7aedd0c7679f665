package audit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

func TestAppendAssignsSeqAndChains(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	prev := GenesisHash
	for i := 1; i <= 5; i++ {
		e, err := s.Append(ctx, ev("s1", "tool.call", "agent:claude", fmt.Sprintf(`{"n": %d, "b": [1, 2]}`, i)))
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		if e.Seq != int64(i) || e.PrevHash != prev || len(e.Hash) != 64 || e.Time.IsZero() {
			t.Fatalf("event %d: got seq=%d prev=%s hash=%s time=%v", i, e.Seq, e.PrevHash, e.Hash, e.Time)
		}
		if want := fmt.Sprintf(`{"b":[1,2],"n":%d}`, i); string(e.Payload) != want {
			t.Fatalf("payload %s, want %s", e.Payload, want)
		}
		prev = e.Hash
	}
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK || rep.Checked != 5 || rep.LastHash != prev {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

func TestConcurrentAppendsShareBatchesAndVerify(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	const workers, each = 16, 50
	var wg sync.WaitGroup
	seqs := make(chan int64, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				e, err := s.Append(ctx, ev(fmt.Sprintf("s%d", w), "tool.call", "agent:x", `{}`))
				if err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				seqs <- e.Seq
			}
		}()
	}
	wg.Wait()
	close(seqs)
	seen := map[int64]bool{}
	for q := range seqs {
		if seen[q] {
			t.Fatalf("seq %d assigned twice", q)
		}
		seen[q] = true
	}
	for q := int64(1); q <= workers*each; q++ {
		if !seen[q] {
			t.Fatalf("seq %d never acknowledged", q)
		}
	}
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK || rep.Checked != workers*each {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

func TestChainContinuesAcrossRestart(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/gatehouse.db"
	var last Event
	for round := 0; round < 3; round++ {
		sqlDB := openTestDB(t, path)
		s, err := Open(ctx, sqlDB, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		seq, head, err := s.Head(ctx)
		if err != nil || seq != last.Seq || (round > 0 && head != last.Hash) {
			t.Fatalf("round %d: Head = %d %s %v, want %d %s", round, seq, head, err, last.Seq, last.Hash)
		}
		for i := 0; i < 3; i++ {
			e, err := s.Append(ctx, ev("s", "session.start", "system", `{}`))
			if err != nil {
				t.Fatal(err)
			}
			if e.Seq != last.Seq+1 || (last.Seq > 0 && e.PrevHash != last.Hash) {
				t.Fatalf("round %d: event %d does not continue the chain after %d", round, e.Seq, last.Seq)
			}
			last = e
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		sqlDB.Close()
	}
	s, _ := Open(ctx, openTestDB(t, path), nil, Options{})
	defer s.Close()
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK || rep.Checked != 9 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

func TestCloseFlushesAndRejectsLaterAppends(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	var pending []<-chan Result
	for i := 0; i < 500; i++ {
		pending = append(pending, s.AppendAsync(ctx, ev("s", "tool.call", "agent:a", `{}`)))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, ch := range pending {
		if r := <-ch; r.Err != nil || r.Event.Seq != int64(i+1) {
			t.Fatalf("pending append %d: %+v", i, r)
		}
	}
	if _, err := s.Append(ctx, ev("s", "tool.call", "agent:a", `{}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK || rep.Checked != 500 {
		t.Fatalf("Verify after Close = %+v, %v", rep, err)
	}
}

func TestAppendRejectsInvalidWithoutRecording(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	if _, err := s.Append(ctx, ev("s", "tool.call", "agent:a", `not json`)); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("err = %v, want ErrInvalidEvent", err)
	}
	if _, err := s.Append(ctx, ev("s", "tool.call", "nobody", `{}`)); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("err = %v, want ErrInvalidEvent", err)
	}
	e, err := s.Append(ctx, ev("s", "tool.call", "agent:a", `{}`))
	if err != nil || e.Seq != 1 {
		t.Fatalf("valid append after rejects: %+v %v", e, err)
	}
}

func TestAppendWithCancelledContextIsNotRecorded(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Append(ctx, ev("s", "tool.call", "agent:a", `{}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The writer re-checks the context before inserting, so only the second
	// append is recorded.
	if e, err := s.Append(t.Context(), ev("s", "tool.call", "agent:a", `{}`)); err != nil || e.Seq != 1 {
		t.Fatalf("append after a cancelled one: %+v %v", e, err)
	}
	rep, err := s.Verify(t.Context())
	if err != nil || !rep.OK || rep.Checked != 1 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

// A full disk (simulated by SQLite's max_page_count) fails the append with
// db.ErrDiskFull, leaves the chain intact, and the store recovers by itself
// once there is room again.
func TestDiskFullThenRecovers(t *testing.T) {
	ctx := t.Context()
	s, sqlDB, _ := newTestStore(t)
	var last Event
	var err error
	for i := 0; i < 3; i++ {
		if last, err = s.Append(ctx, ev("s", "tool.call", "agent:a", `{}`)); err != nil {
			t.Fatal(err)
		}
	}
	var pages int
	if err := sqlDB.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	// max_page_count is per connection: set it on the writer's.
	if _, err := s.wconn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	big := `{"blob":"` + strings.Repeat("x", 200_000) + `"}`
	_, err = s.Append(ctx, ev("s", "tool.result", "agent:a", big))
	if !errors.Is(err, db.ErrDiskFull) {
		t.Fatalf("Append on a full disk = %v, want db.ErrDiskFull", err)
	}
	if err.Error() != db.ErrDiskFull.Error() {
		t.Fatalf("error text %q is not the plain sentence", err)
	}
	if seq, head, _ := s.Head(ctx); seq != last.Seq || head != last.Hash {
		t.Fatalf("failed batch moved the head to %d %s", seq, head)
	}
	if _, err := s.wconn.ExecContext(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	e, err := s.Append(ctx, ev("s", "tool.result", "agent:a", big))
	if err != nil {
		t.Fatalf("Append after space returned: %v", err)
	}
	if e.Seq != last.Seq+1 || e.PrevHash != last.Hash {
		t.Fatalf("chain after recovery: seq %d prev %s, want %d %s", e.Seq, e.PrevHash, last.Seq+1, last.Hash)
	}
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK || rep.Checked != 4 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

func TestChunkRowsCoversBatches(t *testing.T) {
	for n := 1; n <= 3*rowsPerInsert+1; n++ {
		left, chunks := n, 0
		for left > 0 {
			rows, k := chunkRows(left)
			if rows != 1<<k || rows > left || rows > rowsPerInsert {
				t.Fatalf("chunkRows(%d) = %d, %d", left, rows, k)
			}
			left -= rows
			chunks++
		}
		if chunks > n/rowsPerInsert+7 {
			t.Fatalf("%d rows took %d statements", n, chunks)
		}
	}
}

// Batches of every remainder size go through the power-of-two statements.
func TestBatchSizesAcrossChunkBoundaries(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	total := 0
	for _, n := range []int{1, 63, 64, 65, 127, 200} {
		if err := s.insert(ctx, preparedEvents(t, n), &hasher{}); err != nil {
			t.Fatalf("batch of %d: %v", n, err)
		}
		total += n
	}
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK || rep.Checked != int64(total) {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

func preparedEvents(t *testing.T, n int) []Event {
	out := make([]Event, n)
	for i := range out {
		e, err := prepare(ev("s", "tool.call", "agent:a", fmt.Sprintf(`{"i":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = e
	}
	return out
}
