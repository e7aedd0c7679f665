// Package tools holds Gatehouse's built-in MCP tools, one file a tool (the
// file tools share one): each with its input and output schema, the checks
// of its arguments, the plan policy judges and the work it does once
// cleared. The pipeline that runs them (policy, cards, checkpoints, staging,
// audit) is package call; a tool reaches it only through Deps.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/netguard"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Commands runs a call's command where the pipeline chose: staged or
// checked, with the session's network, toolchains and budget.
// *call.Runner is one.
type Commands interface {
	// Lookup finds argv0 as a command run from cwd would; its error tells
	// the agent how to make a missing program visible.
	Lookup(argv0, cwd string) (string, error)
	// RunCommand runs cmd under the call's cleared plan and returns what
	// the sandbox saw and notes the command's own messages do not say.
	RunCommand(ctx context.Context, c *call.InFlight, cmd call.Command) (sandbox.Result, []string, error)
}

// Person puts a card to the person at the computer and waits for the
// answer. *call.Runner is one.
type Person interface {
	Ask(ctx context.Context, c *call.InFlight, q approval.Request) (approval.Decision, error)
}

// Redirects clears a fetch's redirect to another host, as policy would a
// fetch of that host. *call.Runner is one.
type Redirects interface {
	AllowRedirect(ctx context.Context, c *call.InFlight, host string) error
}

// Deps is what the built-in tools need of the pipeline and the daemon.
type Deps struct {
	Commands  Commands
	Person    Person
	Redirects Redirects
	// Fetch tunes fetch_url (size cap, timeout); CheckHost is set per call.
	Fetch netguard.Options
	// Redact removes secrets from text; a command's streams are redacted
	// before they are cut, so no secret is split across the cut.
	Redact func(string) string
	// Window redacts part of a file read within the bytes around it
	// (call.Redactor); without it, the part alone.
	Window func(b []byte, start, end int) []byte
	Logger *slog.Logger
}

// Builtin is every built-in tool, in the order tools/list shows them.
func Builtin(d Deps) []*call.Tool {
	if d.Redact == nil {
		d.Redact = func(s string) string { return s }
	}
	if d.Window == nil {
		d.Window = call.TextRedactor(d.Redact).Window
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	tools := []*call.Tool{runCommand(d)}
	tools = append(tools, fileTools(d)...)
	return append(tools, fetchURL(d), askHuman(d))
}

// For is the Deps of tools that a runner runs itself, as the daemon
// wires them.
func For(r *call.Runner, red call.Redactor, logger *slog.Logger) Deps {
	d := Deps{Commands: r, Person: r, Redirects: r, Logger: logger}
	if red != nil {
		d.Redact, d.Window = red.String, red.Window
	}
	return d
}

func decode(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return call.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// outputSchema closes an object schema over the given properties plus the
// two every result may carry: "error" (a call that produced no output says
// why) and "warning" (it ran, but something the agent should know went
// wrong, such as its checkpoint). Each describes the structured part of a
// tool's result, which carries the whole result (Claude Code and Codex
// show the model only this part).
func outputSchema(props string) json.RawMessage {
	s := fmt.Sprintf(`{
  "type": "object",
  "properties": {%s,
    "error": {"type": "string", "description": "Why the call produced no result."},
    "warning": {"type": "string", "description": "Something the agent should know although the call ran."}
  },
  "additionalProperties": false
}`, strings.TrimRight(props, "\n"))
	return json.RawMessage(s) // valid JSON: TestSchemasValidate, not every start
}
