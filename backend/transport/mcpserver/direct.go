package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// Local reads are most of an agent's calls, and on the SDK's path most of
// their cost is the SDK's own JSON-RPC machinery: it decodes each message
// several times with a fresh 32 KiB buffer each time, re-encodes the result
// four times over, and hands the call between three goroutines. So a
// tools/call for a local-read tool on a session Gatehouse opened is
// answered here instead, with one decode and one encode, through the same
// Runner.Call and toolResult as the SDK's path. The reply is a single
// application/json response, which Streamable HTTP allows for any POST.
//
// Only a request the SDK would take as it is comes this way: a live
// stateful session of ours used with its own token, a legacy (stateful) protocol
// version, the headers the SDK checks, one request with exactly the
// jsonrpc, id, method and params members, and params with a name and
// arguments only (no _meta, so no progress token to honour). Anything else,
// malformed or not, goes to the SDK unchanged and gets its answer.

// directVersions are the stateful protocol versions; later ones have no
// sessions and go to the SDK's stateless handler.
var directVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// direct answers qualifying calls itself and passes everything else on.
func (s *Server) direct(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := s.directSession(r)
		if st == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		// Whatever happens, the SDK sees the body as it came.
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		if err != nil || len(body) > maxBodyBytes {
			next.ServeHTTP(w, r)
			return
		}
		dc, ok := parseDirectCall(body)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if t := s.cfg.Runner.Tool(dc.name); t == nil || !t.LocalRead {
			next.ServeHTTP(w, r)
			return
		}
		res := toolResult(s.cfg.Runner.Call(r.Context(), call.Request{State: st, Tool: dc.name, Args: dc.args, Via: call.ViaMCP}))
		out, err := encodeResponse(dc.id, res)
		if err != nil {
			// Structured results are built from JSON values; this is a bug.
			s.cfg.Logger.Error("encode a direct tool result", "tool", dc.name, "err", err)
			http.Error(w, "Gatehouse could not encode this result; see the daemon log.", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache, no-transform")
		h.Set("Content-Length", strconv.Itoa(len(out.Bytes())))
		_, _ = w.Write(out.Bytes())
		responseBuffers.Put(out)
	})
}

type readCloser struct {
	io.Reader
	io.Closer
}

// directSession is the state of the open session a POST may be answered
// for directly, or nil when its headers are not ones the SDK would accept
// as they are (or the session has yet to open from its client's roots).
func (s *Server) directSession(r *http.Request) *session.State {
	if r.Method != http.MethodPost || r.ContentLength > maxBodyBytes {
		return nil
	}
	h := r.Header
	o := s.session(h.Get(sessionIDHeader))
	if o == nil || o.userID == "" {
		return nil
	}
	st := o.state()
	if st == nil || st.Live.Context().Err() != nil {
		// Ended or killed sessions get the SDK's path and its answers.
		return nil
	}
	if ti := auth.TokenInfoFromContext(r.Context()); ti == nil || ti.UserID != o.userID {
		return nil // the SDK refuses it
	}
	if !slices.Contains(directVersions, h.Get("Mcp-Protocol-Version")) || len(h.Values("Last-Event-ID")) > 0 {
		return nil
	}
	if ct, _, _ := strings.Cut(h.Get("Content-Type"), ";"); !strings.EqualFold(strings.TrimSpace(ct), "application/json") {
		return nil
	}
	if !acceptsBoth(h.Values("Accept")) {
		return nil
	}
	return st
}

// acceptsBoth: the client takes both a JSON and an event-stream answer,
// which the SDK requires of every POST (explicit types only, to keep it
// simple; wildcards go to the SDK).
func acceptsBoth(values []string) bool {
	var js, sse bool
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json":
				js = true
			case "text/event-stream":
				sse = true
			}
		}
	}
	return js && sse
}

type directCall struct {
	id   json.RawMessage // a JSON integer or string, as sent
	name string
	args json.RawMessage
}

// parseDirectCall takes a body that is exactly one tools/call request with
// nothing the direct path would leave unhandled. Keys match exactly (maps,
// not structs, whose field matching ignores case).
func parseDirectCall(body []byte) (directCall, bool) {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(body, &msg); err != nil || len(msg) != 4 {
		return directCall{}, false
	}
	var version, method string
	if json.Unmarshal(msg["jsonrpc"], &version) != nil || version != "2.0" ||
		json.Unmarshal(msg["method"], &method) != nil || method != "tools/call" {
		return directCall{}, false
	}
	id := msg["id"]
	if !validID(id) {
		return directCall{}, false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return directCall{}, false
	}
	var call directCall
	for k, v := range params {
		switch k {
		case "name":
			if json.Unmarshal(v, &call.name) != nil {
				return directCall{}, false
			}
		case "arguments":
			call.args = v
		default:
			return directCall{}, false
		}
	}
	if call.name == "" {
		return directCall{}, false
	}
	call.id = id
	return call, true
}

// validID: a JSON-RPC id the SDK takes, a string or an integer.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// The result's JSON shape, the same members mcp.CallToolResult encodes to
// (mcpserver's tests hold the two equal), written in one pass.
type wireResult struct {
	Meta              map[string]any `json:"_meta,omitempty"`
	Content           []any          `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
}

type wireText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  wireResult      `json:"result"`
}

var responseBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeResponse writes a JSON-RPC response carrying res into a pooled
// buffer, which the caller puts back.
func encodeResponse(id json.RawMessage, res *mcp.CallToolResult) (*bytes.Buffer, error) {
	wr := wireResponse{JSONRPC: "2.0", ID: id, Result: wireResult{Meta: res.Meta, IsError: res.IsError, Content: make([]any, 0, len(res.Content))}}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Meta == nil && t.Annotations == nil {
			// The bulk of the bytes: encoded once, not re-read by a Marshaler.
			wr.Result.Content = append(wr.Result.Content, wireText{Type: "text", Text: t.Text})
			continue
		}
		wr.Result.Content = append(wr.Result.Content, c)
	}
	if res.StructuredContent != nil {
		wr.Result.StructuredContent = res.StructuredContent
	}
	buf := responseBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&wr); err != nil {
		responseBuffers.Put(buf)
		return nil, err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return buf, nil
}
