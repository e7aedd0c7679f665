package agentusage

import (
	"fmt"
	"strconv"
)

// claudeLine is what a Claude Code transcript line says about usage. An
// assistant message is written once per content block, each line with
// the message's usage, so lines are counted once per message id.
type claudeLine struct {
	Type    string   `json:"type"`
	CostUSD *float64 `json:"costUSD"`
	Message *struct {
		ID    string `json:"id"`
		Usage *struct {
			Input       *int64 `json:"input_tokens"`
			Output      *int64 `json:"output_tokens"`
			CacheCreate int64  `json:"cache_creation_input_tokens"`
			CacheRead   int64  `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// ReadClaude sums a Claude Code transcript (…/projects/*/SESSION.jsonl).
func ReadClaude(path string) Usage {
	type msg struct{ in, out, cw, cr int64 }
	seen := map[string]msg{}
	var order []string
	var cost float64
	costSeen := false
	err := readLines(path, "Claude Code's transcript", func(n int, l *claudeLine) error {
		if l.Type != "assistant" {
			return nil
		}
		if l.Message == nil || l.Message.Usage == nil || l.Message.Usage.Input == nil || l.Message.Usage.Output == nil {
			return fmt.Errorf("line %d of Claude Code's transcript has an assistant message without the usage fields this Gatehouse knows (a newer format?)", n)
		}
		u := l.Message.Usage
		id := l.Message.ID
		if id == "" {
			id = "line-" + strconv.Itoa(n)
		}
		if _, dup := seen[id]; !dup {
			order = append(order, id)
			if l.CostUSD != nil {
				cost += *l.CostUSD
				costSeen = true
			}
		}
		// The last line of a message carries its final usage.
		seen[id] = msg{in: *u.Input, out: *u.Output, cw: u.CacheCreate, cr: u.CacheRead}
		return nil
	})
	if err != nil {
		return unknown(path, "%v", err)
	}
	us := Usage{Known: true, Source: path}
	for _, id := range order {
		m := seen[id]
		us.Input += m.in + m.cw + m.cr
		us.Output += m.out
		us.CacheRead += m.cr
		us.CacheWrite += m.cw
	}
	if costSeen {
		us.CostUSD = &cost
	}
	return us
}
