// Package agentconfig wires Gatehouse into an agent's own configuration:
// the MCP server entry and the hooks that send the agent's native tools
// through Gatehouse. Every edit is textual, so the person's formatting and
// comments survive, and every install keeps what is needed to restore the
// files byte for byte.
//
// The sequence of `gatehouse install AGENT` (Installer.Wire):
//
//  1. Install reads each file the agent's wiring touches (claude.go,
//     codex.go, gemini.go, cursor.go say which, for the user or the system
//     scope) and plans its edit: JSON files through jsonedit.go, TOML
//     through tomledit.go, hooks files through hooksjson.go.
//  2. A file not as a previous install left it is recorded as it is now
//     (record.go), minus Gatehouse entries the person copied in by hand,
//     so uninstall can restore it.
//  3. The record is written first, then the files, so a crash between the
//     writes still leaves uninstall able to restore what it finds.
//  4. Wire gives the agent a token of its own (token.go), revocable alone.
//
// Uninstall (Installer.Unwire) restores a file still as install left it
// byte for byte; one the person edited since loses only Gatehouse's
// entries. Status and HookCommands (probe.go) tell `doctor` what is wired.
package agentconfig
