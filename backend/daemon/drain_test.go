package daemon

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestDrainWaitsForWorkAndRefusesNew: a stop waits for the request under
// way, refuses new work meanwhile, and lets reads through.
func TestDrainWaitsForWorkAndRefusesNew(t *testing.T) {
	var f inflight
	release := make(chan struct{})
	entered := make(chan struct{})
	h := f.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/slow" {
			close(entered)
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}))
	go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/slow", nil))
	<-entered

	drained := make(chan bool, 1)
	go func() { drained <- f.drain(t.Context()) }()
	waitfor.For(t, 10*time.Second, "the drain to begin", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.draining
	})
	for _, c := range []struct {
		method string
		want   int
	}{{http.MethodPost, http.StatusServiceUnavailable}, {http.MethodDelete, http.StatusServiceUnavailable}, {http.MethodGet, http.StatusOK}} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, "/other", nil))
		if rec.Code != c.want {
			t.Errorf("%s while draining: %d, want %d", c.method, rec.Code, c.want)
		}
	}
	select {
	case <-drained:
		t.Fatal("drain returned while a request was under way")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if ok := <-drained; !ok {
		t.Fatal("drain reported a timeout")
	}
}

func TestDrainGivesUpWithItsContext(t *testing.T) {
	var f inflight
	f.n = 1 // a request that never ends
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if f.drain(ctx) {
		t.Fatal("drain reported success with a request still under way")
	}
}

func TestStopReason(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(&StopReason{Why: "quit", By: "human", Message: "the person quit"})
	if r := stopReason(ctx); r != (StopReason{Why: "quit", By: "human", Message: "the person quit"}) {
		t.Fatalf("stopReason = %+v", r)
	}
	ctx2, cancel2 := context.WithCancelCause(t.Context())
	cancel2(errors.New("other"))
	if r := stopReason(ctx2); r != defaultStop {
		t.Fatalf("stopReason of an unrelated cause = %+v, want the default", r)
	}
}
