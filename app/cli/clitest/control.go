package clitest

import (
	"bytes"
	"encoding/json"
	"time"
)

// Approval is the part of a pending approval tests look at.
type Approval struct {
	ID       string   `json:"id"`
	Session  string   `json:"session"`
	CallID   string   `json:"call_id"`
	Tool     string   `json:"tool"`
	Argv     []string `json:"argv"`
	Reason   string   `json:"reason"`
	Question string   `json:"question"`
	Kind     string   `json:"kind"`
	// Paths are the paths a call or a workspace card names.
	Paths []string `json:"paths"`
	// NoSessionScope: the card offers no "for this session".
	NoSessionScope bool `json:"no_session_scope"`
	// An effect card's change set, findings and conflicts.
	Changes []struct {
		Path string `json:"path"`
		Op   string `json:"op"`
		Kind string `json:"kind"`
	} `json:"changes"`
	Findings  []string `json:"findings"`
	Conflicts []struct {
		Path string `json:"path"`
		Why  string `json:"why"`
	} `json:"conflicts"`
	Diff string `json:"diff"`
	// A network card's destination and the rule its "always" would add.
	Domain     string `json:"domain"`
	Port       int    `json:"port"`
	AlwaysRule string `json:"always_rule"`
	// AlwaysNote: "always" on a card with no rule, and what it keeps.
	AlwaysNote string `json:"always_note"`
}

// WaitApproval polls the control API until an approval is pending.
func (d *Daemon) WaitApproval(timeout time.Duration) Approval {
	d.t.Helper()
	var first Approval
	WaitFor(d.t, timeout, "an approval", func() bool {
		p := d.Pending()
		if len(p) > 0 {
			first = p[0]
		}
		return len(p) > 0
	})
	return first
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// AllowNext allows, once, the next card that appears within timeout,
// from a goroutine of its own: for a test whose agent waits on the card.
func (d *Daemon) AllowNext(timeout time.Duration) {
	go func() {
		a := d.WaitApproval(timeout)
		d.Decide(a.ID, "allow", "once", "")
	}()
}

// Decide answers an approval through the control API.
func (d *Daemon) Decide(id, decision, scope, message string) int {
	d.t.Helper()
	b, _ := json.Marshal(map[string]string{"decision": decision, "scope": scope, "message": message})
	h := d.Control()
	h["Content-Type"] = "application/json"
	resp, body := d.Request("POST", "/api/v1/approvals/"+id, bytes.NewReader(b), h)
	if resp.StatusCode != 200 {
		d.t.Logf("decide %s: %d %s", id, resp.StatusCode, body)
	}
	return resp.StatusCode
}

// Control is the header set for control API requests.
func (d *Daemon) Control() map[string]string {
	return map[string]string{"Authorization": "Bearer " + d.Token("control")}
}

// Events returns the audit events (oldest first) as raw maps.
func (d *Daemon) Events(query string) []map[string]any {
	d.t.Helper()
	_, body := d.Request("GET", "/api/v1/events?limit=1000&"+query, nil, d.Control())
	var out struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		d.t.Fatalf("events: %v %s", err, body)
	}
	return out.Events
}
