// Package cli holds the gatehouse subcommands, one file per command. Each
// file registers its command in init so commands can be added without
// touching root.go.
//
// The sequence of one invocation (Main):
//
//  1. A hidden entry point takes over first when argv names one: the
//     sandbox helper's roles, which must not pay for the command tree.
//  2. Otherwise the cobra root parses the global flags (--data and the
//     rest, Globals) and the subcommand, under a context that SIGINT and
//     SIGTERM cancel, so every command's blocking work ends on a signal.
//  3. No subcommand opens the desktop app, or falls back to `serve` with a
//     sentence when there is no display (desktop.go, serve.go).
//  4. Commands that talk to a running daemon go through app/client: the
//     control API over the same-uid socket, the agent's calls over TCP
//     with its token (daemonconn.go). `hook` and `exec` are the agents'
//     own tools' way in; they fail closed on any error.
//  5. reportError maps the outcome to one place: a UserError becomes one
//     escaped sentence on stderr and its exit status; anything else keeps
//     its detail for the log and tells the person where to look.
package cli
