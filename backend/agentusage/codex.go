package agentusage

import (
	"errors"
	"fmt"
)

// codexLine is a Codex rollout line: {"type": …, "payload": …}.
type codexLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type string `json:"type"`
		Info *struct {
			Total *struct {
				Input       *int64 `json:"input_tokens"`
				CachedInput int64  `json:"cached_input_tokens"`
				Output      *int64 `json:"output_tokens"`
			} `json:"total_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

// ReadCodex reads a Codex rollout (sessions/YYYY/MM/DD/rollout-*-ID.jsonl):
// its last token_count event holds the run's totals.
func ReadCodex(path string) Usage {
	us := Usage{Known: true, Source: path}
	first := true
	err := readLines(path, "Codex's rollout", func(n int, l *codexLine) error {
		if first {
			// The format this reads starts with the session's meta line.
			if l.Type != "session_meta" {
				return errors.New("Codex's rollout does not start with session_meta (a format this Gatehouse does not know)")
			}
			first = false
			return nil
		}
		if l.Type != "event_msg" || l.Payload.Type != "token_count" || l.Payload.Info == nil {
			return nil // info is null before the first model reply
		}
		t := l.Payload.Info.Total
		if t == nil || t.Input == nil || t.Output == nil {
			return fmt.Errorf("line %d of Codex's rollout has a token_count without the totals this Gatehouse knows (a newer format?)", n)
		}
		// Totals, not increments: the last one is the run's.
		us.Input, us.Output, us.CacheRead = *t.Input, *t.Output, t.CachedInput
		return nil
	})
	if err != nil {
		return unknown(path, "%v", err)
	}
	if first {
		return unknown(path, "Codex's rollout is empty")
	}
	return us
}
