package audit

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// A row carries the time it was recorded, not the time its batch
// committed: a row queued early in a call keeps its own time although it
// commits with the call's last row.
func TestRowsCarryTheirOwnTime(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	q := s.Queue(ctx, ev("s", "exec.started", ActorSystem, `{}`))
	// A sleep, not a wait: what is tested is that wall-clock time passing
	// between two rows shows in their times.
	time.Sleep(lazyCommitDelay / 2)
	last, err := s.Append(ctx, ev("s", "tool.result", ActorSystem, `{}`))
	if err != nil {
		t.Fatal(err)
	}
	first := <-q
	if first.Err != nil || first.Event.Seq+1 != last.Seq {
		t.Fatalf("queued row: %+v", first)
	}
	if d := last.Time.Sub(first.Event.Time); d < lazyCommitDelay/4 {
		t.Fatalf("rows recorded %v apart carry times %v apart", lazyCommitDelay/2, d)
	}
	// A time the caller gives is kept.
	given := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := ev("s", "system.note", ActorSystem, `{}`)
	e.Time = given
	got, err := s.Append(ctx, e)
	if err != nil || !got.Time.Equal(given) {
		t.Fatalf("given time: %v %v", got.Time, err)
	}
}

// Times never run backwards in seq order, whoever stamped first, and
// across a reopened store.
func TestTimesFollowSeq(t *testing.T) {
	s, sqlDB, _ := newTestStore(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				e := ev(fmt.Sprintf("s%d", g), "tool.call", ActorSystem, `{}`)
				if i%3 == 0 {
					<-s.Queue(ctx, e)
					continue
				}
				if _, err := s.Append(ctx, e); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, sqlDB, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.Append(ctx, ev("s", "tool.call", ActorSystem, `{}`)); err != nil {
		t.Fatal(err)
	}
	rows, err := sqlDB.QueryContext(ctx, "SELECT seq, time_ns FROM audit_events ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var prev, n int64
	for rows.Next() {
		var seq, ns int64
		if err := rows.Scan(&seq, &ns); err != nil {
			t.Fatal(err)
		}
		if ns < prev {
			t.Fatalf("seq %d is %v earlier than the row before it", seq, time.Duration(prev-ns))
		}
		prev, n = ns, n+1
	}
	if n != 801 {
		t.Fatalf("%d rows", n)
	}
}
