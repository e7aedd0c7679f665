// Package session is Gatehouse's agent sessions: the live ones, the agent
// runs they belong to, and their budgets.
//
//   - Manager (session.go, query.go) records each session, counts its
//     calls, and holds the daemon-wide pause and kill switches that gate
//     every call (Switches).
//   - Runs (runs.go, runkey.go, runsreap.go) gives each agent run one session,
//     whichever way its calls arrive: its MCP connection (a stateful
//     session, the stdio bridge, stateless requests) and its hooks share
//     the session by the run's key. A session lives while its client
//     does: it shows as idle (and gives back its warm sandbox) when the
//     client goes quiet, and ends when the client has gone.
//   - State (state.go, grants.go) is one session as its calls see it: its
//     workspaces, the person's grants for this session, when it was last
//     heard from. What the call pipeline opens for the session (its
//     sandbox) the pipeline keeps in the state's Resources
//     (resources.go), so that idling or ending the session releases it
//     without this package knowing of sandboxes.
//   - Limits (limits.go) are a session's budgets, the cost circuit
//     breaker: which one is spent, and doubling them when the person lets
//     the session go on. The card that asks is the call pipeline's.
package session
