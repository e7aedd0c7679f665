package audit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// seedQueryStore writes 60 events: sessions a/b/c in turn, kinds cycling
// tool.call, tool.result, policy.decision, actors by kind, one second apart.
func seedQueryStore(t *testing.T) (*Store, time.Time) {
	t.Helper()
	s, _, _ := newTestStore(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	kinds := []string{"tool.call", "tool.result", "policy.decision"}
	actors := []string{"agent:claude", "agent:claude", "policy"}
	for i := 0; i < 60; i++ {
		e := Event{
			Time:    base.Add(time.Duration(i) * time.Second),
			Session: string(rune('a' + i%3)),
			Kind:    kinds[i%3],
			Actor:   actors[i%3],
			Payload: []byte(fmt.Sprintf(`{"i":%d}`, i)),
		}
		if _, err := s.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	return s, base
}

func seqs(evs []Event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func TestQueryFilters(t *testing.T) {
	s, base := seedQueryStore(t)
	// seq = i+1; session a holds i%3==0 (seq 1,4,7,…), kind tool.call too.
	tests := []struct {
		name  string
		q     Query
		first []int64 // leading seqs expected
		count int
	}{
		{"default limit, ascending", Query{}, []int64{1, 2, 3}, 60},
		{"limit", Query{Limit: 5}, []int64{1, 2, 3, 4, 5}, 5},
		{"session", Query{Filter: Filter{Session: "b"}}, []int64{2, 5, 8}, 20},
		{"kind exact", Query{Filter: Filter{Kind: "tool.result"}}, []int64{2, 5}, 20},
		{"kind prefix", Query{Filter: Filter{Kind: "tool."}}, []int64{1, 2, 4, 5}, 40},
		{"kind prefix matches nothing else", Query{Filter: Filter{Kind: "policy."}}, []int64{3, 6}, 20},
		{"actor", Query{Filter: Filter{Actor: "policy"}}, []int64{3, 6, 9}, 20},
		{"session and kind", Query{Filter: Filter{Session: "a", Kind: "tool.call"}}, []int64{1, 4}, 20},
		{"session and other kind", Query{Filter: Filter{Session: "a", Kind: "tool.result"}}, nil, 0},
		{"since inclusive", Query{Filter: Filter{Since: base.Add(50 * time.Second)}}, []int64{51, 52}, 10},
		{"until exclusive", Query{Filter: Filter{Until: base.Add(3 * time.Second)}}, []int64{1, 2, 3}, 3},
		{"time window", Query{Filter: Filter{Since: base.Add(10 * time.Second), Until: base.Add(12 * time.Second)}}, []int64{11, 12}, 2},
		{"after", Query{After: 55}, []int64{56, 57, 58, 59, 60}, 5},
		{"before", Query{Before: 3}, []int64{1, 2}, 2},
		{"after and before", Query{After: 10, Before: 14}, []int64{11, 12, 13}, 3},
		{"newest first", Query{Newest: true, Limit: 3}, []int64{60, 59, 58}, 3},
		{"newest in session before", Query{Filter: Filter{Session: "c"}, Newest: true, Before: 30, Limit: 2}, []int64{27, 24}, 2},
		{"unknown session", Query{Filter: Filter{Session: "zz"}}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Query(t.Context(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			gs := seqs(got)
			if len(gs) != tc.count {
				t.Fatalf("got %d events %v, want %d", len(gs), gs, tc.count)
			}
			for i, want := range tc.first {
				if gs[i] != want {
					t.Fatalf("seqs %v, want prefix %v", gs, tc.first)
				}
			}
		})
	}
}

func TestQueryLimitBounds(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	var pending []<-chan Result
	for i := 0; i < MaxLimit+50; i++ {
		pending = append(pending, s.AppendAsync(ctx, ev("s", "tool.call", "agent:a", `{}`)))
	}
	for _, ch := range pending {
		if r := <-ch; r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	for _, tc := range []struct{ limit, want int }{{0, DefaultLimit}, {-1, DefaultLimit}, {7, 7}, {MaxLimit + 1, MaxLimit}} {
		got, err := s.Query(ctx, Query{Limit: tc.limit})
		if err != nil || len(got) != tc.want {
			t.Errorf("Limit %d: %d events (%v), want %d", tc.limit, len(got), err, tc.want)
		}
	}
}

func TestKeysetPaginationVisitsEveryEventOnce(t *testing.T) {
	s, _ := seedQueryStore(t)
	ctx := t.Context()
	var all []int64
	var after int64
	for {
		page, err := s.Query(ctx, Query{Filter: Filter{Session: "a"}, After: after, Limit: 6})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		all = append(all, seqs(page)...)
		after = page[len(page)-1].Seq
	}
	if len(all) != 20 || all[0] != 1 || all[19] != 58 {
		t.Fatalf("ascending pages visited %v", all)
	}
	var back []int64
	var before int64
	for {
		page, err := s.Query(ctx, Query{Filter: Filter{Session: "a"}, Before: before, Newest: true, Limit: 7})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		back = append(back, seqs(page)...)
		before = page[len(page)-1].Seq
	}
	if len(back) != 20 || back[0] != 58 || back[19] != 1 {
		t.Fatalf("newest-first pages visited %v", back)
	}
}

func TestLastReturnsTailOldestFirst(t *testing.T) {
	s, _ := seedQueryStore(t)
	got, err := s.Last(t.Context(), 3, Filter{Session: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if gs := seqs(got); len(gs) != 3 || gs[0] != 53 || gs[1] != 56 || gs[2] != 59 {
		t.Fatalf("Last = %v, want [53 56 59]", gs)
	}
	e := got[2]
	if e.Session != "b" || e.Kind != "tool.result" || e.Actor != "agent:claude" || string(e.Payload) != `{"i":58}` ||
		!e.Time.Equal(time.Date(2025, 1, 1, 0, 0, 58, 0, time.UTC)) || len(e.Hash) != 64 || len(e.PrevHash) != 64 {
		t.Fatalf("event read back wrong: %+v", e)
	}
}

func TestQueryUsesIndexForSessionTail(t *testing.T) {
	_, sqlDB, _ := newTestStore(t)
	where, args := Filter{Session: "x"}.where(0, 0)
	rows, err := sqlDB.Query("EXPLAIN QUERY PLAN "+selectSQL+where+" ORDER BY seq DESC LIMIT 100", args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan += detail + "\n"
	}
	if want := "USING INDEX audit_events_session_seq"; !strings.Contains(plan, want) || strings.Contains(plan, "TEMP B-TREE") {
		t.Fatalf("plan for session tail:\n%s\nwant %q and no sort", plan, want)
	}
}
