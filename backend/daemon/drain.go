package daemon

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
)

// StopReason, as the cause of the context that ends Run, says who stopped
// the daemon; calls still waiting on a card are denied in its words.
type StopReason struct {
	Why     string // for system.stop: "signal", "quit", …
	By      string // who denies the waiting calls: "human" when the person quit, else "system:shutdown"
	Message string // what their agents are told
}

func (r *StopReason) Error() string { return "gatehouse stopped: " + r.Message }

// defaultStop is a stop nobody explained: a signal, most often.
var defaultStop = StopReason{Why: "signal", By: "system:shutdown", Message: "Gatehouse was stopped before anyone answered, so the call was denied"}

func stopReason(ctx context.Context) StopReason {
	var r *StopReason
	if errors.As(context.Cause(ctx), &r) && r != nil && r.Message != "" {
		out := *r
		if out.By == "" {
			out.By = defaultStop.By
		}
		if out.Why == "" {
			out.Why = defaultStop.Why
		}
		return out
	}
	return defaultStop
}

// drainGrace is how long a stop waits for calls under way to finish and
// answer their agents before it cancels them.
const drainGrace = 10 * time.Second

// inflight counts the requests that do work (everything but GET and HEAD:
// tool calls, decisions) so a stop can wait until each has answered. Long
// reads (event streams, MCP's GET stream) are not counted: they end only
// when cancelled.
type inflight struct {
	mu       sync.Mutex
	n        int
	idle     chan struct{} // closed when n drops to 0 while someone waits
	draining bool
}

func (f *inflight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		f.mu.Lock()
		if f.draining {
			f.mu.Unlock()
			// Nothing new starts while the calls under way are answered.
			httpgate.Error(w, http.StatusServiceUnavailable, "Gatehouse is stopping; try again once it runs again")
			return
		}
		f.n++
		f.mu.Unlock()
		defer f.done()
		next.ServeHTTP(w, r)
		// Answered means sent: a stop that ends the event streams next
		// must not overtake an answer still in the response buffer.
		_ = http.NewResponseController(w).Flush()
	})
}

func (f *inflight) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// drain refuses new work and waits until the requests under way have
// answered, or ctx ends. It reports whether they all did.
func (f *inflight) drain(ctx context.Context) bool {
	f.mu.Lock()
	f.draining = true
	if f.n == 0 {
		f.mu.Unlock()
		return true
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-ctx.Done():
		return false
	}
}

// stopCalls is the first step of a stop: every call waiting on a card is
// denied with the stop's reason (and so are cards filed from now on), and
// the calls under way get drainGrace to record their results and answer
// their agents, while the audit store is still open.
func (d *Daemon) stopCalls(r StopReason) {
	ctx, cancel := context.WithTimeout(context.Background(), drainGrace)
	defer cancel()
	denied := d.approvals.Close(ctx, r.By, r.Message)
	if !d.busy.drain(ctx) {
		d.logger.Warn("calls still running after the grace period; cancelling them", "grace", drainGrace)
		return
	}
	d.logger.Info("calls under way answered", "denied_waiting", denied)
}
