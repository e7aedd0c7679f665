package agenttest

import (
	"crypto/tls"
	"log"

	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// API is a vendor's model API.
type API int

const (
	Anthropic API = iota // Messages API, for Claude Code
	OpenAI               // Responses API, for Codex CLI
	Gemini               // Gemini API, for Gemini CLI
)

// Request is one request the model server received.
type Request struct {
	// At is when the request arrived.
	At     time.Time
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	// ToolResults are the texts of the tool results in the request's
	// history, oldest first: what the model saw of each call.
	ToolResults []string
	// Offered are the tool names the request offered the model.
	Offered []string
}

// Model is a scripted model server on 127.0.0.1.
type Model struct {
	api    API
	script Script
	// scheme is "https" for StartModelTLS ("" is http).
	scheme string
	srv    *http.Server
	ln     net.Listener

	mu   sync.Mutex
	reqs []Request
}

// dialect is one API's request parsing and streaming format.
type dialect interface {
	// parse reads what the script needs from a request body.
	parse(body []byte) (results []string, offered []string, err error)
	// serve answers one model request with step.
	serve(w http.ResponseWriter, r *http.Request, st Step)
	// isModelCall tells model turns from side requests (token counts).
	isModelCall(r *http.Request) bool
	// side answers a request that is not a model turn.
	side(w http.ResponseWriter, r *http.Request)
}

// answerSide is every dialect's side: ok for a path ending in suffix (the
// one side request the agent makes), else notFound with a 404, in JSON.
func answerSide(w http.ResponseWriter, r *http.Request, suffix, ok, notFound string) {
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, suffix) {
		_, _ = w.Write([]byte(ok))
		return
	}
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(notFound))
}

func dialectOf(a API) dialect {
	switch a {
	case Anthropic:
		return anthropic{}
	case OpenAI:
		return openAI{}
	default:
		return gemini{}
	}
}

// NewModel starts a scripted model server for api. Close it when done.
func NewModel(api API, script Script) (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	m := &Model{api: api, script: script, ln: ln}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.handle)}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// StartModel is NewModel for a test: a model that cannot start fails the
// test, and the model stops when the test ends.
func StartModel(t testing.TB, api API, script Script) *Model {
	t.Helper()
	m, err := NewModel(api, script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// StartModelTLS is StartModel serving HTTPS with a self-signed
// certificate for names (and 127.0.0.1), whose PEM it returns for the
// CLI to trust: what a CLI behind a proxy's CONNECT tunnel needs, since
// Gatehouse's proxy carries only TLS naming the approved domain.
func StartModelTLS(t testing.TB, api API, script Script, names ...string) (*Model, []byte) {
	t.Helper()
	cert, caPEM := leafCert(t, append(names, "127.0.0.1")...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{api: api, script: script, ln: ln, scheme: "https"}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.handle), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}},
		ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = m.srv.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { m.Close() })
	return m, caPEM
}

// URL is the server's base URL, e.g. http://127.0.0.1:PORT.
func (m *Model) URL() string {
	scheme := m.scheme
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + m.ln.Addr().String()
}

// Close stops the server.
func (m *Model) Close() error { return m.srv.Close() }

// Requests returns every request received so far.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.reqs...)
}

func (m *Model) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	d := dialectOf(m.api)
	rec := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	if !d.isModelCall(r) {
		m.record(rec)
		d.side(w, r)
		return
	}
	results, offered, err := d.parse(body)
	rec.ToolResults, rec.Offered = results, offered
	m.record(rec)
	if err != nil {
		http.Error(w, `{"error":{"message":"agenttest: unreadable request"}}`, http.StatusBadRequest)
		return
	}
	st := m.script.next(results, func(name string) bool {
		for _, o := range offered {
			if o == name {
				return true
			}
		}
		return false
	})
	d.serve(w, r.WithContext(context.WithValue(r.Context(), bodyKey{}, body)), st)
}

// bodyKey carries the request body to a dialect's serve.
type bodyKey struct{}

func (m *Model) record(r Request) {
	m.mu.Lock()
	m.reqs = append(m.reqs, r)
	m.mu.Unlock()
}

// sse writes a complete event stream in one response.
type sse struct{ b strings.Builder }

func (s *sse) event(name string, data any) {
	j, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	if name != "" {
		s.b.WriteString("event: " + name + "\n")
	}
	s.b.WriteString("data: " + string(j) + "\n\n")
}

func (s *sse) send(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Length", fmt.Sprint(len(s.b.String())))
	_, _ = io.WriteString(w, s.b.String())
}

// textOf flattens a tool result's content (a string, or a list of blocks
// with "text") into text.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}
