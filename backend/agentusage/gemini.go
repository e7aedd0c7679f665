package agentusage

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// geminiMessage is one message of a Gemini CLI chat.
type geminiMessage struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Tokens *struct {
		Input    *int64 `json:"input"`
		Output   *int64 `json:"output"`
		Cached   int64  `json:"cached"`
		Thoughts int64  `json:"thoughts"`
		Tool     int64  `json:"tool"`
	} `json:"tokens"`
}

// geminiChat is a Gemini CLI chat file (tmp/HASH/chats/session-*.json).
type geminiChat struct {
	SessionID string          `json:"sessionId"`
	Messages  []geminiMessage `json:"messages"`
}

// ReadGemini sums the model's messages of a Gemini CLI chat file: the
// whole-JSON form (session-*.json) or the JSON-lines form newer versions
// append to (session-*.jsonl).
func ReadGemini(path string) Usage {
	if strings.HasSuffix(path, ".jsonl") {
		return readGeminiLines(path)
	}
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

// geminiLine is one line of a JSON-lines chat: the first carries the
// session; then each is a message (written again, whole, when it
// changes: the last copy of an id counts) or a {"$set": …} patch, whose
// "messages" replaces the list.
type geminiLine struct {
	SessionID string `json:"sessionId"`
	geminiMessage
	Set *struct {
		Messages *[]geminiMessage `json:"messages"`
	} `json:"$set"`
}

func readGeminiLines(path string) Usage {
	c := geminiChat{}
	index := map[string]int{}
	put := func(m geminiMessage) {
		if i, ok := index[m.ID]; ok && m.ID != "" {
			c.Messages[i] = m
			return
		}
		index[m.ID] = len(c.Messages)
		c.Messages = append(c.Messages, m)
	}
	err := readLines(path, "Gemini CLI's chat", func(n int, l *geminiLine) error {
		switch {
		case n == 1:
			if l.SessionID == "" {
				return errors.New("Gemini CLI's chat does not start with its session (a format this Gatehouse does not know)")
			}
			c.SessionID = l.SessionID
		case l.Set != nil:
			if l.Set.Messages != nil {
				c.Messages, index = nil, map[string]int{}
				for _, m := range *l.Set.Messages {
					put(m)
				}
			}
		case l.Type != "":
			put(l.geminiMessage)
		default:
			return fmt.Errorf("line %d of Gemini CLI's chat is neither a message nor a patch (a newer format?)", n)
		}
		return nil
	})
	if err != nil {
		return unknown(path, "%v", err)
	}
	if c.SessionID == "" {
		return unknown(path, "Gemini CLI's chat is empty")
	}
	return sumGemini(path, c)
}

// geminiSessionOf reads only the session id of a chat file (either form).
func geminiSessionOf(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if strings.HasSuffix(path, ".jsonl") {
		br := bufio.NewReaderSize(f, 64<<10)
		line, err := br.ReadBytes('\n')
		if err != nil && len(line) == 0 {
			return "", false
		}
		var l geminiLine
		if json.Unmarshal(line, &l) != nil {
			return "", false
		}
		return l.SessionID, l.SessionID != ""
	}
	var c geminiChat
	if json.NewDecoder(f).Decode(&c) != nil {
		return "", false
	}
	return c.SessionID, c.SessionID != ""
}
