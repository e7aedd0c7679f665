// Package agentusage reads the token counts agents write about themselves
// (Claude Code's transcripts, Codex's rollouts, Gemini CLI's chats) for a
// session's agent run, so token budgets can count them. A count it cannot
// vouch for — no file, a file cut short, a format it does not know — is
// Unknown with the reason, never a guess: a wrong number would let a
// budget pass, or stop an agent, for nothing.
package agentusage

import "fmt"

// Usage is one agent run's tokens so far.
type Usage struct {
	Known bool `json:"known"`
	// Why says what is missing when the count is not Known.
	Why        string `json:"why,omitempty"`
	Input      int64  `json:"input"`       // prompt tokens, cache reads and writes included
	Output     int64  `json:"output"`      // completion tokens, reasoning included
	CacheRead  int64  `json:"cache_read"`  // of Input, read from the model's cache
	CacheWrite int64  `json:"cache_write"` // of Input, written to it
	// CostUSD is what the agent says the run cost, when it writes it.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	Source  string   `json:"source,omitempty"` // the file it was read from
}

// Total is the tokens a budget counts: everything the model read and wrote.
func (u Usage) Total() int64 { return u.Input + u.Output }

func unknown(source, format string, args ...any) Usage {
	return Usage{Why: fmt.Sprintf(format, args...), Source: source}
}
