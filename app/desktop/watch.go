package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

// approvalWatcher follows new approval cards through the daemon's
// in-process handler (a long-poll on the control API, no network) and
// notifies while the window is out of sight.
type approvalWatcher struct {
	api    http.Handler
	hidden func() bool
	notify Notifier
	// onCard runs for every new card, seen or not.
	onCard func()
	logger *slog.Logger
	// wait is the long-poll length (seconds); tests shorten it.
	wait int

	last uint32
}

type eventPage struct {
	Events []struct {
		Seq     int64           `json:"seq"`
		Kind    string          `json:"kind"`
		Payload json.RawMessage `json:"payload"`
	} `json:"events"`
	NextAfter int64 `json:"next_after"`
}

// get calls the API in-process and decodes a JSON answer.
func (w *approvalWatcher) get(ctx context.Context, path string, q url.Values, dst any) error {
	u := path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	rec := httptest.NewRecorder()
	w.api.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
	return json.Unmarshal(rec.Body.Bytes(), dst)
}

// newest is the sequence number of this daemon's start: cards from an
// earlier run are not announced, and a card raised between the daemon's
// first answer and this watcher's first poll still is.
func (w *approvalWatcher) newest(ctx context.Context) (int64, error) {
	var p eventPage
	if err := w.get(ctx, "/api/v1/events", url.Values{"kind": {"system.start"}, "order": {"desc"}, "limit": {"1"}}, &p); err != nil {
		return 0, err
	}
	if len(p.Events) == 0 {
		return 0, nil
	}
	return p.Events[0].Seq, nil
}

func (w *approvalWatcher) pending(ctx context.Context) int {
	var p struct {
		Approvals []json.RawMessage `json:"approvals"`
	}
	if err := w.get(ctx, "/api/v1/approvals", nil, &p); err != nil {
		return 0
	}
	return len(p.Approvals)
}

// run follows cards until ctx ends.
func (w *approvalWatcher) run(ctx context.Context) {
	wait := w.wait
	if wait <= 0 {
		wait = 25
	}
	failures := 0
	backoff := func() bool {
		failures++
		d := min(time.Duration(failures)*time.Second, 30*time.Second)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	after, err := w.newest(ctx)
	for err != nil {
		if ctx.Err() != nil {
			return
		}
		w.logger.Warn("desktop notifications: cannot read the timeline", "err", err)
		if !backoff() {
			return
		}
		after, err = w.newest(ctx)
	}
	failures = 0
	for ctx.Err() == nil {
		var p eventPage
		err := w.get(ctx, "/api/v1/events", url.Values{
			"kind": {"approval.requested"}, "after": {strconv.FormatInt(after, 10)},
			"wait": {strconv.Itoa(wait)}, "limit": {"100"},
		}, &p)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.logger.Warn("desktop notifications: long-poll failed", "err", err)
			if !backoff() {
				return
			}
			continue
		}
		failures = 0
		if p.NextAfter > after {
			after = p.NextAfter
		}
		var newest *approval.Request
		for _, e := range p.Events {
			if e.Kind != "approval.requested" {
				continue
			}
			var ev approval.Request
			if json.Unmarshal(e.Payload, &ev) == nil {
				newest = &ev
			}
		}
		if newest == nil {
			continue
		}
		if w.onCard != nil {
			w.onCard()
		}
		if !w.hidden() {
			continue
		}
		title, body := notificationText(*newest, w.pending(ctx))
		id, err := w.notify.Notify(Notification{
			Title: title, Body: body, Replaces: w.last,
			Approval: newest.ID, Decidable: newest.Kind != "question",
		})
		if err != nil {
			w.logger.Warn("desktop notification not shown", "err", err)
			continue
		}
		w.last = id
		w.logger.Info("desktop notification sent", "approval", newest.ID, "id", id)
	}
}
