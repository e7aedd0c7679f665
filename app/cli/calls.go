package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/session"
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
	// Card is the kind of card the approval was on when it was not the
	// call's own: effect (its changes), network, limit, question.
	Card string `json:"card,omitempty"`
	// Outcome is running, waiting, ok, error, denied, refused or invalid:
	// how the call's last row looked. End says how the call ended.
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"` // the error, or the first line of a failed result
	Bytes   *int64 `json:"bytes,omitempty"`
	// End is how the call ended, and Label the same in words ("discarded
	// by you: keep history"); calls recorded before outcomes have none.
	End   *session.End `json:"end,omitempty"`
	Label string       `json:"label,omitempty"`
	// Reason is the policy's, or the effect rules', reason.
	Reason string `json:"reason,omitempty"`
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
			Reason  string          `json:"reason"`
			Status  string          `json:"status"`
			Error   string          `json:"error"`
			IsError bool            `json:"is_error"`
			Bytes   *int64          `json:"bytes"`
			Preview string          `json:"preview"`
			Kind    string          `json:"kind"`
			// Outcome is the call's end, on its last row.
			Outcome *session.End `json:"outcome"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		if c.Tool == "" {
			c.Tool = p.Tool
		}
		if p.Outcome != nil && p.Outcome.Outcome != "" {
			c.End = p.Outcome
		}
		switch e.Kind {
		case "tool.call":
			c.Args = p.Args
		case "policy.decision":
			c.Policy, c.Reason = p.Verdict, p.Reason
		case "effect.decision":
			if p.Verdict != "allow" {
				c.Reason = p.Reason
			}
		case "approval.requested":
			c.Outcome, c.Card = "waiting", ""
			if p.Kind != "" && p.Kind != "call" {
				c.Card = p.Kind
			}
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
		if c.End != nil {
			c.Label = c.End.Label()
		}
		out = append(out, *c)
	}
	return out
}

// cardNames name a card's kind in the verdict column.
var cardNames = map[string]string{"effect": "changes", "network": "network", "limit": "budget", "question": "question"}

// outcomeNames name a tally's buckets in a session's summary.
var outcomeNames = map[session.Outcome]string{
	session.OutcomeOK: "ok", session.OutcomeApplied: "applied", session.OutcomeCleared: "cleared for the agent's own tool",
	session.OutcomeFailed: "failed", session.OutcomeDenied: "denied", session.OutcomeDiscarded: "discarded",
	session.OutcomeRolledBack: "rolled back", session.OutcomeRefused: "refused", session.OutcomeStopped: "stopped by the kill switch",
}

// callsSummary sums a session's calls up by outcome, each call once, so
// the numbers add up to its calls; asking is said apart, as a dimension
// of its own: "5 calls: 3 ok, 1 applied, 1 discarded. 2 of them asked you first."
func callsSummary(s session.Info) string {
	line := plural.Count(s.Calls, "call", "calls")
	var parts []string
	for _, o := range session.Outcomes {
		if n := s.Outcomes.Of(o); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, outcomeNames[o]))
		}
	}
	ended := s.Outcomes.Total()
	if len(parts) > 0 {
		if rest := s.Calls - ended; rest > 0 {
			what := "running or waiting"
			if s.Status != session.Active {
				what = "never finished"
			}
			parts = append(parts, fmt.Sprintf("%d %s", rest, what))
		}
		line += ": " + strings.Join(parts, ", ")
	}
	line += "."
	switch {
	case s.Asked > s.Calls:
		// Cards that are not calls' own (a confined run's network access):
		// "of them" would not add up.
		times := "once"
		if s.Asked > 1 {
			times = plural.Count(s.Asked, "time", "times")
		}
		line += " Gatehouse asked you " + times + "."
	case s.Asked == 1 && s.Calls == 1:
		line += " It asked you first."
	case s.Asked == 1:
		line += " 1 of them asked you first."
	case s.Asked > 1:
		line += fmt.Sprintf(" %d of them asked you first.", s.Asked)
	}
	return line
}

// verdict is the policy's answer and, when a card asked, the decision:
// "ask, denied" on the call's own card, "allow, changes denied" on the
// card its changes waited on.
func (c callRow) verdict() string {
	v := c.Policy
	if c.Approval != "" {
		if v != "" {
			v += ", "
		}
		if n := cardNames[c.Card]; n != "" {
			v += n + " "
		}
		v += c.Approval
	}
	if v == "" {
		return "-"
	}
	return termsafe.String(v)
}

// result is how the call ended, in words: its outcome's label and what
// explains it (the size of what it returned, the error, the reason).
func (c callRow) result() string {
	if c.End != nil && c.Outcome != "waiting" {
		s := termsafe.String(c.End.Label())
		switch c.End.Outcome {
		case session.OutcomeOK, session.OutcomeApplied:
			if c.Bytes != nil {
				s += ", " + sizeText(*c.Bytes)
			}
		case session.OutcomeDenied, session.OutcomeDiscarded, session.OutcomeRolledBack:
			if c.End.By == session.ByPolicy && c.Reason != "" {
				s += " (" + short(c.Reason) + ")"
			}
		case session.OutcomeFailed, session.OutcomeRefused:
			if c.End.ExitCode == nil && c.End.Killed == "" && c.Detail != "" {
				s += ": " + short(c.Detail)
			}
		}
		return s
	}
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
