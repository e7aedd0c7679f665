package agenttest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// openAI speaks the Responses API: POST /v1/responses, answered as an SSE
// stream of response.created, output items and response.completed.
//
// Codex offers MCP tools inside a namespace entry,
// {"type":"namespace","name":"mcp__gatehouse","tools":[{"type":"function","name":"run_command"}]};
// the script names such a tool "mcp__gatehouse__run_command", and the call
// goes out as {"type":"function_call","namespace":"mcp__gatehouse","name":"run_command"}.
type openAI struct{}

const namespaceSep = "__"

func (openAI) isModelCall(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses")
}

func (openAI) side(w http.ResponseWriter, r *http.Request) {
	answerSide(w, r, "/models", `{"object":"list","data":[],"models":[]}`, `{"error":{"message":"agenttest serves /v1/responses only"}}`)
}

type openAITool struct {
	Type  string       `json:"type"`
	Name  string       `json:"name"`
	Tools []openAITool `json:"tools"`
}

func (openAI) parse(body []byte) (results, offered []string, err error) {
	var req struct {
		Tools []openAITool      `json:"tools"`
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, err
	}
	for _, t := range req.Tools {
		if t.Type == "namespace" {
			for _, in := range t.Tools {
				offered = append(offered, t.Name+namespaceSep+in.Name)
			}
			continue
		}
		if t.Name != "" {
			offered = append(offered, t.Name)
		}
	}
	for _, raw := range req.Input {
		var it struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "function_call_output", "custom_tool_call_output":
			results = append(results, textOf(it.Output))
		}
	}
	return results, offered, nil
}

// split turns "mcp__gatehouse__run_command" into its namespace and name;
// a plain function ("exec_command") has no namespace.
func split(tool string) (namespace, name string) {
	if !strings.HasPrefix(tool, "mcp"+namespaceSep) {
		return "", tool
	}
	i := strings.LastIndex(tool, namespaceSep)
	return tool[:i], tool[i+len(namespaceSep):]
}

func (openAI) serve(w http.ResponseWriter, r *http.Request, st Step) {
	var item map[string]any
	if st.Tool != "" {
		ns, name := split(st.Tool)
		item = map[string]any{"type": "function_call", "id": st.callID("fc"), "call_id": st.callID("call"),
			"name": name, "arguments": st.argsJSON(), "status": "completed"}
		if ns != "" {
			item["namespace"] = ns
		}
	} else {
		item = map[string]any{"type": "message", "id": "msg_agenttest", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
	}
	var s sse
	s.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_agenttest"}})
	s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	s.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": "resp_agenttest", "output": []any{item},
		"usage": map[string]any{"input_tokens": 1, "input_tokens_details": nil, "output_tokens": 1, "output_tokens_details": nil, "total_tokens": 2},
	}})
	s.send(w)
}
