// Package secrets keeps credentials away from the model.
//
// Two jobs: injection (a Store hands configured secrets, such as GH_TOKEN for
// /usr/bin/gh only, to the commands that need them, through their
// environment, so the agent never sees the value), and redaction (a Redactor
// removes exact secret values and common token shapes from anything leaving
// the daemon: tool output, audit payloads, streams).
package secrets
