package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

// callRow is one tool call of a session, folded from its audit events for
// `gatehouse sessions ID`. Strings are as the agent sent them; the table
// escapes them (see the column methods).
type callRow struct {
	ID       string          `json:"call_id"`
	Time     time.Time       `json:"time"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args,omitempty"`
	Policy   string          `json:"policy,omitempty"`   // allow, ask, deny
	Approval string          `json:"approval,omitempty"` // allowed, denied, expired, answered
	// Outcome is running, waiting, ok, error, denied, refused or invalid.
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"` // the error, or the first line of a failed result
	Bytes   *int64 `json:"bytes,omitempty"`
}

// summaryWidth bounds the args and result columns so a row fits a terminal.
const summaryWidth = 60

// foldCalls groups events (oldest first) by call, in the order calls began.
func foldCalls(events []audit.Event) []callRow {
	byID := map[string]*callRow{}
	var order []*callRow
	for _, e := range events {
		if e.CallID == "" {
			continue
		}
		c := byID[e.CallID]
		if c == nil {
			c = &callRow{ID: e.CallID, Time: e.Time, Outcome: "running"}
			byID[e.CallID] = c
			order = append(order, c)
		}
		var p struct {
			Tool    string          `json:"tool"`
			Args    json.RawMessage `json:"args"`
			Verdict string          `json:"verdict"`
			Status  string          `json:"status"`
			Error   string          `json:"error"`
			IsError bool            `json:"is_error"`
			Bytes   *int64          `json:"bytes"`
			Preview string          `json:"preview"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		if c.Tool == "" {
			c.Tool = p.Tool
		}
		switch e.Kind {
		case "tool.call":
			c.Args = p.Args
		case "policy.decision":
			c.Policy = p.Verdict
		case "approval.requested":
			c.Outcome = "waiting"
		case "approval.decided", "approval.expired":
			c.Approval = p.Status
			if c.Approval == "" {
				c.Approval = "expired"
			}
			c.Outcome = "running"
		case "tool.invalid", "tool.refused", "tool.denied", "tool.error":
			c.Outcome, c.Detail = strings.TrimPrefix(e.Kind, "tool."), p.Error
		case "tool.result":
			// An allowed local read is one event carrying its args and verdict.
			if len(p.Args) > 0 {
				c.Args = p.Args
			}
			if p.Verdict != "" {
				c.Policy = p.Verdict
			}
			c.Outcome, c.Bytes = "ok", p.Bytes
			if p.IsError {
				c.Outcome, c.Detail = "error", p.Preview
			}
		}
	}
	out := make([]callRow, 0, len(order))
	for _, c := range order {
		out = append(out, *c)
	}
	return out
}

// verdict is the policy's answer and, when it asked, the decision.
func (c callRow) verdict() string {
	v := c.Policy
	if c.Approval != "" {
		if v != "" {
			v += ", "
		}
		v += c.Approval
	}
	if v == "" {
		return "-"
	}
	return termsafe.String(v)
}

func (c callRow) result() string {
	switch {
	case c.Outcome == "ok" && c.Bytes != nil:
		return "ok, " + sizeText(*c.Bytes)
	case c.Outcome == "waiting":
		return "waiting for a decision"
	case c.Detail != "":
		return termsafe.String(c.Outcome) + ": " + short(c.Detail)
	}
	return termsafe.String(c.Outcome)
}

// args is the part of a call's arguments that says what it does.
func (c callRow) args() string {
	var a map[string]any
	if json.Unmarshal(c.Args, &a) != nil || len(a) == 0 {
		return ""
	}
	if argv, ok := a["argv"].([]any); ok {
		parts := make([]string, 0, len(argv))
		for _, v := range argv {
			s, _ := v.(string)
			parts = append(parts, s)
		}
		return clip(termsafe.Argv(parts))
	}
	for _, k := range []string{"path", "url", "query", "pattern", "question"} {
		if s, ok := a[k].(string); ok && s != "" {
			return clip(termsafe.String(s))
		}
	}
	b, _ := json.Marshal(a)
	return clip(termsafe.String(string(b)))
}

// short is the first line of s, escaped and clipped.
func short(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(termsafe.String(s))
}

// clip cuts an escaped string to summaryWidth runes (escapes are ASCII, so
// a cut never splits one into something a terminal acts on).
func clip(s string) string {
	if utf8.RuneCountInString(s) <= summaryWidth {
		return s
	}
	r := []rune(s)
	return string(r[:summaryWidth-1]) + "…"
}

func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
