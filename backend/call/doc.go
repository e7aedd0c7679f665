// Package call is the path every tool call takes, whichever transport
// brought it (MCP, an agent's hook, `gatehouse exec`). A transport builds a
// Request and hands it to the Runner; the call is then one InFlight value
// passed down explicitly, never state in a context. The tools themselves
// live in package call/tools and are registered on the Runner; a command
// tool asks the Runner to run its command (RunCommand, command.go), which
// is where the sandbox, staging, network and budget meet.
//
// The sequence of Runner.Call:
//
//  1. begin: a call id; the call's context also ends with its session.
//  2. gate: the tool.call audit row (held back for a local read, see
//     readlog.go), pause and kill (session.Manager.Admit), the budgets
//     (session.Limits; limits.go asks with a limit card when one is
//     spent), argument validation
//     against the tool's JSON Schema, the tool's plan (MakePlan: what the
//     call would do, as a policy.Action), then policy (policy.go) and, when
//     policy asks, the person (an approval card).
//  3. run: a mutating command runs staged where the sandbox can (staged.go:
//     an overlay, so the workspace is untouched until its change set
//     lands, land.go), and checked where it cannot (checked.go: between two
//     checkpoints, rolled back when refused). Either way effect rules
//     (effect.go, cards in effectcard.go) judge the change set; the stage
//     mechanics live in the effect package. File tools checkpoint their own
//     paths (checkpoint.go); reads take none.
//  4. finish: redact secrets, bound each part, label outside content as
//     data (external.go), count the session's usage, write tool.result.
//     Only then does the agent get its Result.
//
// An agent's own tool (a native Bash or Read) goes through Decide instead:
// the same gate without the run, returning a Clearance, the decision as a
// value that finishes the call. The agent runs the tool itself and the
// transport calls Clearance.Finish, or a shell command comes back through
// `gatehouse exec` and Clearance.Run runs it in the sandbox under the same
// call id. MCP, the hook and exec thus share one path.
//
// The session itself (its grants, budgets, idling) is a session.State.
// What the pipeline opens for a session, its sandbox and staging root, it
// keeps in the state's Resources (held.go), so that idling or ending the
// session releases them.
//
// Errors the model sees are one plain sentence (agenterror.go); every
// other error stays in the log. Each tool's structured result is a Go type
// (CommandResult for run_command) that transports decode rather than read
// by string key.
package call
