package session

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// The routes a session's calls arrive by. A session one agent run reaches
// by several (its MCP bridge and its hooks) records them all, joined by
// "+" in the order they first came: "stdio+hook".
const (
	TransportStdio         = "stdio"
	TransportHook          = "hook"
	TransportHTTP          = "http"
	TransportHTTPStateless = "http-stateless"
)

var transportLabels = map[string]string{
	TransportStdio:         "MCP over stdio, through the gatehouse mcp bridge",
	TransportHook:          "the agent's own tools, through its gatehouse hooks",
	TransportHTTP:          "MCP over HTTP",
	TransportHTTPStateless: "MCP over HTTP, stateless (a 2026-07-28 client)",
}

// TransportLabel names a session's transport for people: every route it
// was reached by ("MCP over stdio, through the gatehouse mcp bridge, and
// the agent's own tools, through its gatehouse hooks").
func TransportLabel(transport string) string {
	var parts []string
	for _, t := range strings.Split(transport, "+") {
		if t == "" {
			continue
		}
		if l, ok := transportLabels[t]; ok {
			parts = append(parts, l)
		} else {
			parts = append(parts, t)
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], "; ") + "; and " + parts[len(parts)-1]
}

// hasTransport reports whether the session's transport includes t.
func hasTransport(transport, t string) bool {
	return slices.Contains(strings.Split(transport, "+"), t)
}

// AddTransport records that a live session is reached by transport t as
// well (a run its MCP bridge began, now reached by its hooks too).
func (m *Manager) AddTransport(ctx context.Context, id, t string) {
	l, ok := m.Get(id)
	if !ok || t == "" {
		return
	}
	l.mu.Lock()
	if hasTransport(l.info.Transport, t) {
		l.mu.Unlock()
		return
	}
	if l.info.Transport == "" {
		l.info.Transport = t
	} else {
		l.info.Transport += "+" + t
	}
	now := l.info.Transport
	l.mu.Unlock()
	if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET transport=? WHERE id=?`, now, id); err != nil {
		m.logger.Warn("update session transport", "session", id, "err", err)
	}
}

// infoJSON is Info without its MarshalJSON.
type infoJSON Info

// MarshalJSON adds transport_label, the transport named for people.
func (i Info) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		infoJSON
		TransportLabel string `json:"transport_label,omitempty"`
	}{infoJSON(i), TransportLabel(i.Transport)})
}
