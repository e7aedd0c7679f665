package agentusage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
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
	b, err := os.ReadFile(path)
	if err != nil {
		return unknown(path, "Codex's rollout could not be read: %v", err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return unknown(path, "Codex's rollout ends in a partial line (cut short, or being written)")
	}
	us := Usage{Known: true, Source: path}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	first := true
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l codexLine
		if err := json.Unmarshal(line, &l); err != nil {
			return unknown(path, "line %d of Codex's rollout is not JSON (truncated or corrupt)", n)
		}
		if first {
			// The format this reads starts with the session's meta line.
			if l.Type != "session_meta" {
				return unknown(path, "Codex's rollout does not start with session_meta (a format this Gatehouse does not know)")
			}
			first = false
			continue
		}
		if l.Type != "event_msg" || l.Payload.Type != "token_count" || l.Payload.Info == nil {
			continue // info is null before the first model reply
		}
		t := l.Payload.Info.Total
		if t == nil || t.Input == nil || t.Output == nil {
			return unknown(path, "line %d of Codex's rollout has a token_count without the totals this Gatehouse knows (a newer format?)", n)
		}
		// Totals, not increments: the last one is the run's.
		us.Input, us.Output, us.CacheRead = *t.Input, *t.Output, t.CachedInput
	}
	if err := sc.Err(); err != nil {
		return unknown(path, "Codex's rollout could not be read: %v", err)
	}
	if first {
		return unknown(path, "Codex's rollout is empty")
	}
	return us
}
