package call

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// Output is what a tool produced, before redaction.
type Output struct {
	// Structured is the whole result, as the tool's output schema
	// describes it: some clients (Claude Code, Codex) show the model only
	// this part.
	Structured map[string]any
	// Text renders the same result for clients that read the text block.
	Text    string
	IsError bool
	// External marks content from outside the workspace (a web page, a file
	// elsewhere); it is labelled as data for the model, in Text and in the
	// Structured field ContentKey names.
	External   string // "", "file" or "web"
	Source     string
	ContentKey string
	// Warning is something the agent should know although the call ran
	// (its checkpoint failed, so it cannot be undone).
	Warning      string
	OutputBytes  int64
	CPU          time.Duration
	ExecFinished map[string]any // for the exec.finished audit row
	// Effect is what became of a command's changes (withEffect), as the
	// structured part's "effect" says it.
	Effect *effect.Result
}

// Result goes back to the agent.
type Result struct {
	CallID     string
	Text       string
	Structured map[string]any
	IsError    bool
}

// MaxResultBytes bounds what one call returns to the model, per part.
const MaxResultBytes = 256 << 10

// failure is the result of a call that did not produce an output: the
// sentence goes in both parts, so every client shows it.
func failure(callID, msg string) Result {
	return Result{CallID: callID, Text: msg, IsError: true, Structured: map[string]any{"error": msg}}
}

// finish redacts, bounds and labels the output, then records the result.
func (r *Runner) finish(ctx context.Context, c *InFlight, out Output) Result {
	sess := c.Session()
	text := r.redact(out.Text)
	structured := redactMap(r.redact, out.Structured)
	if out.External != "" {
		text = WrapExternal(out.External, out.Source, text)
		if s, ok := structured[out.ContentKey].(string); ok && out.ContentKey != "" {
			structured[out.ContentKey] = WrapExternal(out.External, out.Source, s)
		}
	}
	if out.Warning != "" {
		w := r.redact(out.Warning)
		text += "\n[gatehouse: " + w + "]"
		if structured == nil {
			structured = map[string]any{}
		}
		structured["warning"] = w
	}
	text, truncated := bound(text, MaxResultBytes)
	structured = boundStrings(structured, MaxResultBytes)
	r.deps.Sessions.Count(sess, session.Counters{OutputBytes: int64(len(text)), CPUMillis: out.CPU.Milliseconds()})
	end := r.ended(c, endOf(c, out))
	preview, _ := bound(text, 2048)
	actor, payload := "system", map[string]any{
		"tool": c.Req.Tool, "is_error": out.IsError, "bytes": len(text), "truncated": truncated, "preview": preview, "outcome": end,
	}
	row := Row{Kind: "tool.result", Session: sess, Call: c.ID}
	if call, dec, agent, ok := c.held.merge(); ok {
		// The one row of a local read: who asked for what, the decision and
		// the result.
		actor = agent
		payload["args"] = call["args"]
		for _, k := range []string{"verdict", "reason", "rule"} {
			payload[k] = dec[k]
		}
		if rs, _ := dec["risks"].([]approval.Risk); len(rs) > 0 {
			payload["risks"] = rs
		}
		row.Expected = c.held.expect
	} else {
		r.flushHeld(ctx, c)
	}
	row.Actor, row.Payload = actor, payload
	if err := r.deps.Audit.Record(context.WithoutCancel(ctx), row); err != nil {
		// No audit row, no answer.
		r.deps.Logger.Error("audit tool.result", "call", c.ID, "err", err)
		return failure(c.ID, "Gatehouse could not record this call's result in its audit log, so it withheld it: "+auditProblem(err))
	}
	return Result{CallID: c.ID, Text: text, Structured: structured, IsError: out.IsError}
}

// bound cuts s to at most n bytes on a UTF-8 boundary, saying so.
func bound(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[gatehouse: output truncated, %d of %d bytes shown]", cut, len(s)), true
}

// boundStrings bounds every string of a structured result.
func boundStrings(m map[string]any, n int) map[string]any {
	if m == nil {
		return nil
	}
	return walkStrings(m, func(s string) string {
		s, _ = bound(s, n)
		return s
	}).(map[string]any)
}

func (r *Runner) redact(s string) string {
	if r.deps.Redact == nil {
		return s
	}
	return r.deps.Redact.String(s)
}

// redactMap redacts the string values of a tool's structured result, which
// is built from JSON-shaped values (maps, slices, strings, numbers, bools).
func redactMap(redact func(string) string, m map[string]any) map[string]any {
	if m == nil || redact == nil {
		return m
	}
	return walkStrings(m, redact).(map[string]any)
}

func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkStrings(x[i], f)
		}
	case []string:
		for i := range x {
			x[i] = f(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = walkStrings(x[k], f)
		}
	}
	return v
}

// Audit bounds for a call's arguments: every string is redacted whole
// before it is cut, so a secret across the cut cannot survive in halves.
const (
	auditArgsMax   = 64 << 10
	auditStringMax = 8 << 10
)

// argsForAudit keeps the audit row bounded and free of secrets.
func (r *Runner) argsForAudit(raw json.RawMessage) any {
	if len(raw) > auditArgsMax {
		head, _ := bound(r.redact(string(raw)), 4096)
		return map[string]any{"truncated": true, "bytes": len(raw), "head": head}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return map[string]any{"invalid_json": true, "bytes": len(raw)}
	}
	return walkStrings(v, func(s string) string {
		s = r.redact(s)
		if len(s) > auditStringMax {
			s, _ = bound(s, auditStringMax)
		}
		return s
	})
}

func redactAll(f func(string) string, in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// StructuredOf is a result struct as an Output's structured part: its
// fields by their json tags.
func StructuredOf(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}
