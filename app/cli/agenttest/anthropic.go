package agenttest

import (
	"encoding/json"
	"net/http"
)

// anthropic speaks the Messages API: POST /v1/messages, answered as an SSE
// stream of message_start, content blocks and message_stop.
type anthropic struct{}

func (anthropic) isModelCall(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
}

func (anthropic) side(w http.ResponseWriter, r *http.Request) {
	answerSide(w, r, "/count_tokens", `{"input_tokens":1}`,
		`{"type":"error","error":{"type":"not_found_error","message":"agenttest serves /v1/messages only"}}`)
}

func (anthropic) parse(body []byte) (results, offered []string, err error) {
	var req struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, err
	}
	for _, t := range req.Tools {
		offered = append(offered, t.Name)
	}
	for _, m := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string message
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results = append(results, textOf(b.Content))
			}
		}
	}
	return results, offered, nil
}

func (anthropic) serve(w http.ResponseWriter, r *http.Request, st Step) {
	var s sse
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		// Each reply its own id, as the real API gives: Claude Code's
		// transcript keys usage by it.
		"id": st.callID("msg"), "type": "message", "role": "assistant", "model": "agenttest", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	}})
	stop := "end_turn"
	if st.Tool != "" {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": st.callID("toolu"), "name": st.Tool, "input": map[string]any{}}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": st.argsJSON()}})
		stop = "tool_use"
	} else {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": st.Text}})
	}
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
	s.send(w)
}
