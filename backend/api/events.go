package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

// maxWait bounds a long-poll, below common proxy and webview timeouts.
const maxWait = 30 * time.Second

func parseQuery(r *http.Request) (audit.Query, time.Duration, error) {
	q := r.URL.Query()
	f := audit.Query{Filter: audit.Filter{Session: q.Get("session"), Kind: q.Get("kind"), Actor: q.Get("actor")}}
	bad := func(msg string) (audit.Query, time.Duration, error) {
		return f, 0, &httpError{http.StatusBadRequest, msg}
	}
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"after", &f.After}, {"before", &f.Before}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return bad(p.name + " must be an event sequence number")
			}
			*p.dst = n
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return bad("limit must be a number from 1 to 1000")
		}
		f.Limit = n
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return bad(p.name + " must be an RFC 3339 time")
			}
			*p.dst = t
		}
	}
	switch q.Get("order") {
	case "", "asc":
	case "desc":
		f.Newest = true
	default:
		return bad("order must be asc or desc")
	}
	var wait time.Duration
	if v := q.Get("wait"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return bad("wait must be a number of seconds")
		}
		wait = min(time.Duration(n)*time.Second, maxWait)
	}
	return f, wait, nil
}

// listEvents pages the timeline. With wait=N and no events after `after`, it
// long-polls: the fallback for webviews that cannot stream SSE.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	f, wait, err := parseQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var sub *audit.Subscription
	if wait > 0 && !f.Newest {
		// Subscribe before querying so nothing falls between the two.
		sub = s.Audit.Subscribe(256)
		defer sub.Close()
	}
	events, err := s.Audit.Query(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(events) == 0 && sub != nil {
		// Says when a request is parked: a test waits for it.
		s.Logger.Debug("events long-poll waiting", "after", f.After, "wait", wait)
		events, err = s.waitFor(r.Context(), sub, f, wait)
		if err != nil {
			s.fail(w, r, err)
			return
		}
	}
	next := f.After
	if n := len(events); n > 0 && !f.Newest {
		next = events[n-1].Seq
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": events, "next_after": next})
}

func (s *Server) waitFor(ctx context.Context, sub *audit.Subscription, f audit.Query, wait time.Duration) ([]audit.Event, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case e, ok := <-sub.C():
			if !ok {
				// Dropped as too slow: let the client query again.
				return s.Audit.Query(ctx, f)
			}
			if e.Seq > f.After && matches(f.Filter, e) {
				return s.Audit.Query(ctx, f)
			}
		case <-t.C:
			return []audit.Event{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// streamEvents is the live timeline as Server-Sent Events. It replays from
// `after` (or Last-Event-ID) out of the database, then forwards live events,
// so a reconnecting client misses nothing.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) {
	f, _, err := parseQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > f.After {
			f.After = n
		}
	}
	f.Newest, f.Before, f.Limit = false, 0, 500
	rc := http.NewResponseController(w)
	sub := s.Audit.Subscribe(1024)
	defer sub.Close()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(e audit.Event) error {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "id: %d\nevent: audit\ndata: %s\n\n", e.Seq, b)
		return err
	}
	// Replay what the client has not seen.
	for {
		page, err := s.Audit.Query(r.Context(), f)
		if err != nil {
			s.Logger.Warn("event stream replay", "err", err)
			return
		}
		for _, e := range page {
			if err := send(e); err != nil {
				return
			}
			f.After = e.Seq
		}
		if len(page) < f.Limit {
			break
		}
	}
	fmt.Fprint(w, ": live\n\n")
	if err := rc.Flush(); err != nil {
		return
	}
	heartbeat := time.NewTicker(15 * time.Second)
	defer heartbeat.Stop()
	for {
		select {
		case e, ok := <-sub.C():
			if !ok {
				fmt.Fprintf(w, "event: dropped\ndata: {\"reason\":\"the stream fell behind; reconnect with Last-Event-ID %d\"}\n\n", f.After)
				_ = rc.Flush()
				return
			}
			if e.Seq <= f.After || !matches(f.Filter, e) {
				continue
			}
			if err := send(e); err != nil {
				return
			}
			f.After = e.Seq
			if err := rc.Flush(); err != nil {
				return
			}
		case <-heartbeat.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// matches applies a filter to a live event the way Query applies it in SQL.
func matches(f audit.Filter, e audit.Event) bool {
	if f.Session != "" && e.Session != f.Session {
		return false
	}
	if f.Actor != "" && e.Actor != f.Actor {
		return false
	}
	if f.Kind != "" {
		if strings.HasSuffix(f.Kind, ".") {
			if !strings.HasPrefix(e.Kind, f.Kind) {
				return false
			}
		} else if e.Kind != f.Kind {
			return false
		}
	}
	if !f.Since.IsZero() && e.Time.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && !e.Time.Before(f.Until) {
		return false
	}
	return true
}
