package desktop

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"
)

// onNotification is a button pressed on a desktop notification.
func (r *resident) onNotification(approval string, a Action) {
	switch a {
	case ActionOpen:
		r.win.Show("notification clicked")
	case ActionAllowOnce:
		r.decide(approval, map[string]string{"decision": "allow", "scope": "once"})
	case ActionDeny:
		r.decide(approval, map[string]string{"decision": "deny", "scope": "once", "message": "denied from the desktop notification"})
	}
}

// decide answers a card through the daemon's in-process control API, as
// the window's buttons do, so the audit records it like any decision.
func (r *resident) decide(approval string, body map[string]string) {
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/api/v1/approvals/"+url.PathEscape(approval), bytes.NewReader(b))
	if err != nil {
		r.logger.Error("decide from the notification", "approval", approval, "err", err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	r.d.LocalHandler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		// Most often someone decided it first (window, CLI, timeout).
		r.logger.Warn("the notification's decision was not taken", "approval", approval, "decision", body["decision"], "status", rec.Code, "answer", rec.Body.String())
		return
	}
	r.logger.Info("decided from the notification", "approval", approval, "decision", body["decision"])
}
