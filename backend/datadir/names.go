// Package datadir names the files of the daemon's data directory (see
// DESIGN.md), for the daemon and for the programs that find it there: the
// CLI, the hooks and the stand-alone `gatehouse exec` in the sandbox
// helper, which links nothing of the daemon.
package datadir

const (
	DBFile        = "gatehouse.db"
	AgentToken    = "agent.token"
	ControlToken  = "control.token"
	ControlSocket = "control.sock"
	AddrFile      = "addr"
	// RedactedDir holds redacted copies of files for agents' own reads.
	RedactedDir = "redacted"
	// TokensDir holds one agent token per installed agent (NAME.token),
	// so one agent can be revoked alone. The daemon registers every file
	// in it at start (and when asked to sync), named after the file.
	TokensDir = "tokens"
	// ShownDir holds the files sandboxes show in place of the person's:
	// their git configs without the credentials in them.
	ShownDir = "shown"
	// TmpDir holds each session's temporary directory, which its commands
	// see as /tmp; a daemon's start empties it.
	TmpDir = "tmp"
)
