package agenttest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// gemini speaks the Gemini API: POST /v1beta/models/M:streamGenerateContent
// (SSE with ?alt=sse), :generateContent (one JSON answer) and :countTokens.
type gemini struct{}

func (gemini) isModelCall(r *http.Request) bool {
	return r.Method == http.MethodPost && (strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || strings.HasSuffix(r.URL.Path, ":generateContent"))
}

func (gemini) side(w http.ResponseWriter, r *http.Request) {
	answerSide(w, r, ":countTokens", `{"totalTokens":1}`,
		`{"error":{"code":404,"message":"agenttest serves generateContent only","status":"NOT_FOUND"}}`)
}

func (gemini) parse(body []byte) (results, offered []string, err error) {
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, err
	}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			offered = append(offered, f.Name)
		}
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				results = append(results, string(p.FunctionResponse.Response))
			}
		}
	}
	return results, offered, nil
}

// jsonFiller answers a request that wants JSON of a schema (Gemini CLI's
// model router and next-speaker checks) with the smallest valid value, so
// the CLI does not retry with backoff.
func jsonFiller(body []byte) (string, bool) {
	var req struct {
		GenerationConfig struct {
			MimeType   string         `json:"responseMimeType"`
			JSONSchema map[string]any `json:"responseJsonSchema"`
			Schema     map[string]any `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	if json.Unmarshal(body, &req) != nil || req.GenerationConfig.MimeType != "application/json" {
		return "", false
	}
	schema := req.GenerationConfig.JSONSchema
	if schema == nil {
		schema = req.GenerationConfig.Schema
	}
	b, _ := json.Marshal(minimal(schema))
	return string(b), true
}

// minimal is the smallest value that a JSON schema accepts.
func minimal(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	t, _ := schema["type"].(string)
	switch strings.ToLower(t) {
	case "object", "":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		req, _ := schema["required"].([]any)
		for _, k := range req {
			name, _ := k.(string)
			p, _ := props[name].(map[string]any)
			out[name] = minimal(p)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	default:
		return ""
	}
}

func (gemini) serve(w http.ResponseWriter, r *http.Request, st Step) {
	var part map[string]any
	if text, ok := jsonFiller(r.Context().Value(bodyKey{}).([]byte)); ok && st.Tool == "" {
		st.Text = text
	}
	if st.Tool != "" {
		var args any
		_ = json.Unmarshal([]byte(st.argsJSON()), &args)
		part = map[string]any{"functionCall": map[string]any{"name": st.Tool, "args": args}}
	} else {
		part = map[string]any{"text": st.Text}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "agenttest",
	}
	if strings.HasSuffix(r.URL.Path, ":generateContent") {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	var s sse
	s.event("", resp)
	s.send(w)
}
