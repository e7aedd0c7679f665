package cli

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

// runWait is what a run's opening waits for, once it takes long enough
// for the person to wonder.
type runWait int

const (
	// waitCard: the person's answer to a workspace card in the app.
	waitCard runWait = iota + 1
	// waitCheckpoint: the daemon, checkpointing the project before the
	// agent starts (a large project's first takes seconds).
	waitCheckpoint
)

// runWaitsOn reads the cards waiting for the person: one about working
// in cwd is what the run waits for; with none, the daemon is opening the
// run, whose long part is its first checkpoint.
func runWaitsOn(pending []approval.Request, cwd string) runWait {
	for _, a := range pending {
		if a.Kind == approval.KindWorkspace && (a.Cwd == cwd || slices.Contains(a.Paths, cwd)) {
			return waitCard
		}
	}
	return waitCheckpoint
}

// sayWhatTheRunWaitsFor says, from a second on and again whenever it
// changes, what the run's opening is waiting for: a card in the app, or
// the checkpoint before the run. Once stop returns it says nothing more
// (the terminal is the agent's next), and stop never waits for the
// daemon.
func sayWhatTheRunWaitsFor(ctx context.Context, g *Globals, c *client.Client, cwd string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	stopped := false
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			fmt.Fprintf(g.Stderr, format, args...)
		}
	}
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var said runWait
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			var list struct {
				Approvals []approval.Request `json:"approvals"`
			}
			now := waitCard // unknown: the card is the one the person can act on
			if err := c.Get(ctx, "/api/v1/approvals", nil, &list); err == nil {
				now = runWaitsOn(list.Approvals, cwd)
			}
			if now == said {
				continue
			}
			said = now
			switch now {
			case waitCard:
				say("gatehouse: waiting for you in the Gatehouse app (a card about working in %s)…\n", cwd)
			case waitCheckpoint:
				say("gatehouse: checkpointing %s before the run, so that what the agent changes can be undone (a large project's first checkpoint takes a while)…\n", cwd)
			}
		}
	}()
	return func() {
		cancel()
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}
