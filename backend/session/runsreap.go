package session

// A run's session ends when its client has gone or stays quiet too long,
// and idles (giving back its warm sandbox) when its client is quiet for a
// while; either way what the session holds is released once.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// drop forgets a run whose session ended and releases what it holds.
func (g *Runs) drop(r *run) {
	g.mu.Lock()
	if g.runs[r.key] == r {
		delete(g.runs, r.key)
	}
	g.mu.Unlock()
	g.release(r)
}

// release closes r's state (its sandbox, a container above all) once.
func (g *Runs) release(r *run) {
	r.released.Do(func() {
		defer g.open.Done()
		r.st.Close(context.Background())
	})
}

// reapEvery is how often the registry looks for quiet and gone clients.
const reapEvery = time.Second

func (g *Runs) reap() {
	defer close(g.done)
	t := time.NewTicker(reapEvery)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case now := <-t.C:
			g.reapOnce(now)
		}
	}
}

// reapOnce ends runs whose client has gone, and idles quiet ones.
func (g *Runs) reapOnce(now time.Time) {
	type action struct {
		st   *State
		end  string
		idle bool
	}
	var due []action
	g.mu.Lock()
	for _, r := range g.runs {
		quiet := now.Sub(r.st.LastCall())
		switch {
		case r.refs == 0 && !r.gone.IsZero() && now.Sub(r.gone) >= g.cfg.GoneGrace:
			due = append(due, action{st: r.st, end: "client disconnected"})
		case r.refs == 0 && r.gone.IsZero() && quiet >= g.cfg.EndAfter:
			due = append(due, action{st: r.st, end: fmt.Sprintf("no call for %s", g.cfg.EndAfter)})
		case quiet >= g.cfg.IdleAfter && !r.st.Live.Snapshot().Idle:
			due = append(due, action{st: r.st, idle: true})
		}
	}
	g.mu.Unlock()
	ctx := context.Background()
	for _, a := range due {
		id := a.st.Live.ID()
		switch {
		case a.end != "":
			g.cfg.Sessions.End(ctx, id, a.end)
		case a.idle:
			a.st.Idle(ctx)
			g.cfg.Sessions.SetIdle(ctx, id, true)
		}
	}
}

// Close stops the reaper and releases every run's sandbox (containers
// above all) before the daemon exits.
func (g *Runs) Close(ctx context.Context) {
	g.once.Do(func() { close(g.stop) })
	<-g.done
	g.mu.Lock()
	runs := slices.Collect(maps.Values(g.runs))
	g.mu.Unlock()
	for _, r := range runs {
		go g.release(r)
	}
	// The sessions the daemon ended just before are being released by
	// their own goroutines (drop); a daemon that exits first leaves their
	// containers running.
	done := make(chan struct{})
	go func() {
		g.open.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
