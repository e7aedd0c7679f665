package export

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{"http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/logs", ""},
		{"http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/logs", ""},
		{"https://collector.example.test/otlp", "https://collector.example.test/otlp/v1/logs", ""},
		{"https://collector.example.test/v1/logs", "https://collector.example.test/v1/logs", ""},
		{"http://user:pw@collector.example.test:4318", "", "put credentials in otlp_headers"},
		{"http://token@collector.example.test:4318", "", "put credentials in otlp_headers"},
		{"http://collector.example.test:4318/?api_key=x", "", "put credentials in otlp_headers"},
		{"collector.example.test:4318", "", "http://"},
		{"ftp://collector.example.test", "", "http://"},
		{"http://", "", "names no host"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseEndpoint(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseEndpoint(%q) = %q, %v; want an error saying %q", tt.in, got, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "api_key=x") {
					t.Fatalf("the error repeats the credential: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseEndpoint(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// Whatever the collector answers — errors, slowness, garbage — every event
// arrives, first arrivals in sequence order, once it answers 2xx again.
func TestOTLPDeliversEveryEventInOrder(t *testing.T) {
	const n = 2500
	tests := []struct {
		name   string
		answer func(n int) (int, time.Duration, string)
	}{
		{"healthy", nil},
		{"5xx then up", func(n int) (int, time.Duration, string) {
			if n < 4 {
				return http.StatusServiceUnavailable, 0, "down for maintenance"
			}
			return http.StatusOK, 0, "{}"
		}},
		{"429 then up", func(n int) (int, time.Duration, string) {
			if n%2 == 0 {
				return http.StatusTooManyRequests, 0, "slow down"
			}
			return http.StatusOK, 0, "{}"
		}},
		{"4xx then fixed", func(n int) (int, time.Duration, string) {
			if n < 3 {
				return http.StatusUnauthorized, 0, "bad token: Bearer team-collector-key"
			}
			return http.StatusOK, 0, "{}"
		}},
		{"413 shrinks the batch", func(n int) (int, time.Duration, string) {
			if n < 2 {
				return http.StatusRequestEntityTooLarge, 0, "too big"
			}
			return http.StatusOK, 0, "{}"
		}},
		{"slower than the timeout", func(n int) (int, time.Duration, string) {
			if n < 2 {
				return http.StatusOK, 2 * time.Second, "{}"
			}
			return http.StatusOK, 0, "{}"
		}},
		{"garbage answers", func(int) (int, time.Duration, string) {
			return http.StatusOK, 0, "\x00\xff<html>not json"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, sqlDB := newStore(t)
			fill(t, st, n)
			col := newCollector(t)
			col.answer = tt.answer
			sink, err := NewOTLP(OTLPOptions{Endpoint: col.URL, Headers: map[string]string{"Authorization": "Bearer team-collector-key"}, Timeout: 300 * time.Millisecond, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			var logs strings.Builder
			r := New(fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}, Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs}, nil))}))
			run(t, r)
			waitfor.For(t, 20*time.Second, "every event at the collector", func() bool { return len(col.distinct()) >= n })
			got := col.distinct()
			if got[0] != 1 || got[len(got)-1] != n || len(got) != n {
				t.Fatalf("received seqs %d..%d (%d distinct), want 1..%d", got[0], got[len(got)-1], len(got), n)
			}
			if !col.firstArrivalsInOrder() {
				t.Fatal("events arrived out of sequence order")
			}
			waitfor.For(t, 5*time.Second, "the status to say current", func() bool {
				s, err := r.Status(t.Context())
				return err == nil && s[0].State == StateCurrent && s[0].SentSeq == n && s[0].Backlog == 0 && s[0].Failures == 0
			})
			s, _ := r.Status(t.Context())
			if got := lockedString(&logs) + s[0].LastError; strings.Contains(got, "team-collector-key") {
				t.Fatalf("the collector's key reached the log or the status: %s", got)
			}
		})
	}
}

// A record carries the gatehouse.* attributes, and a tool call the GenAI
// ones; the collector's auth headers are sent.
func TestOTLPAttributesAndHeaders(t *testing.T) {
	st, sqlDB := newStore(t)
	fill(t, st, 3)
	col := newCollector(t)
	sink, err := NewOTLP(OTLPOptions{Endpoint: col.URL, Headers: map[string]string{"Authorization": "Bearer team-collector-key"}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	run(t, New(fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}})))
	waitfor.For(t, 10*time.Second, "3 events at the collector", func() bool { return len(col.distinct()) >= 3 })
	evs, err := st.Last(t.Context(), 3, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	rec := col.records[0]
	for k, want := range map[string]string{
		"gatehouse.seq": "1", "gatehouse.hash": evs[0].Hash, "gatehouse.session": "s_test", "gatehouse.kind": "tool.call",
		"gen_ai.tool.name": "run_command", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "c0",
	} {
		if got := attr(rec, k); got != want {
			t.Errorf("attribute %s = %q, want %q", k, got, want)
		}
	}
	if rec["eventName"] != "tool.call" || !strings.Contains(rec["body"].(map[string]any)["stringValue"].(string), `"argv":["go","test","./..."]`) {
		t.Errorf("record = %v", rec)
	}
	if got := col.headers[0].Get("Authorization"); got != "Bearer team-collector-key" {
		t.Errorf("Authorization = %q", got)
	}
}

// The cursor is durable: a new runner (a restarted daemon) carries on from
// it, sending again at most what was in flight.
func TestCursorCarriesOnAfterRestart(t *testing.T) {
	st, sqlDB := newStore(t)
	fill(t, st, 500)
	col := newCollector(t)
	sink, _ := NewOTLP(OTLPOptions{Endpoint: col.URL})
	r1 := New(fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}}))
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { r1.Run(ctx); close(done) }()
	// Delivered and acknowledged (a stop while the answer is on its way
	// would rightly send the batch again).
	waitfor.For(t, 10*time.Second, "500 events sent", func() bool {
		s, err := r1.Status(t.Context())
		return err == nil && s[0].SentSeq == 500
	})
	stop()
	<-done
	// Saved on the way out, whenever it was saved last.
	if c, err := loadCursor(t.Context(), sqlDB, SinkOTLP); err != nil || c.Sent != 500 {
		t.Fatalf("the saved cursor is %+v (%v), want 500", c, err)
	}
	col.mu.Lock()
	before := len(col.seqs)
	col.mu.Unlock()
	fill(t, st, 200)
	run(t, New(fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}})))
	waitfor.For(t, 10*time.Second, "700 events", func() bool { return len(col.distinct()) >= 700 })
	col.mu.Lock()
	defer col.mu.Unlock()
	if again := slices.IndexFunc(col.seqs[before:], func(s int64) bool { return s <= 500 }); again >= 0 {
		t.Fatalf("the restarted runner sent seq %d again although the cursor was past it", col.seqs[before+again])
	}
}
