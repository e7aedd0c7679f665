package agentusage

import (
	"encoding/json"
	"os"
)

// geminiChat is a Gemini CLI chat file (tmp/HASH/chats/session-*.json).
type geminiChat struct {
	SessionID string `json:"sessionId"`
	Messages  []struct {
		Type   string `json:"type"`
		Tokens *struct {
			Input    *int64 `json:"input"`
			Output   *int64 `json:"output"`
			Cached   int64  `json:"cached"`
			Thoughts int64  `json:"thoughts"`
			Tool     int64  `json:"tool"`
		} `json:"tokens"`
	} `json:"messages"`
}

// ReadGemini sums the model's messages of a Gemini CLI chat file.
func ReadGemini(path string) Usage {
	b, err := os.ReadFile(path)
	if err != nil {
		return unknown(path, "Gemini CLI's chat could not be read: %v", err)
	}
	var c geminiChat
	if err := json.Unmarshal(b, &c); err != nil {
		return unknown(path, "Gemini CLI's chat is not whole JSON (cut short, or being written)")
	}
	if c.SessionID == "" || c.Messages == nil {
		return unknown(path, "Gemini CLI's chat has no sessionId or messages (a format this Gatehouse does not know)")
	}
	return sumGemini(path, c)
}

func sumGemini(path string, c geminiChat) Usage {
	us := Usage{Known: true, Source: path}
	for i, m := range c.Messages {
		if m.Type != "gemini" {
			continue
		}
		t := m.Tokens
		if t == nil || t.Input == nil || t.Output == nil {
			return unknown(path, "message %d of Gemini CLI's chat has no token counts this Gatehouse knows (a newer format?)", i+1)
		}
		us.Input += *t.Input + t.Tool
		us.Output += *t.Output + t.Thoughts
		us.CacheRead += t.Cached
	}
	return us
}

// geminiSessionOf reads only the session id of a chat file.
func geminiSessionOf(path string) (geminiChat, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return geminiChat{}, false
	}
	var c geminiChat
	if json.Unmarshal(b, &c) != nil {
		return geminiChat{}, false
	}
	return c, true
}
