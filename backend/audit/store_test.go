package audit

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

func TestAppendAssignsSeqAndChains(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := context.Background()
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
	ctx := context.Background()
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
