package mcpserver

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// presencePing keeps the presence stream's connection from idling out.
const presencePing = 15 * time.Second

// presence holds a stdio bridge's connection open for as long as the
// bridge lives. When it closes, because the bridge exited or was killed,
// the run's client has gone: its waiting cards are withdrawn with its
// requests, and its session ends unless the bridge comes back at once.
func (s *Server) presence(w http.ResponseWriter, r *http.Request) {
	key, named, err := runKey(r.Header)
	if err != nil || !named {
		http.Error(w, "a presence stream must name its run in the "+RunHeader+" header", http.StatusBadRequest)
		return
	}
	start := session.RunStart{Client: "unknown", Transport: "stdio", Cwd: cwdOf(r.Header)}
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		start.Token = ti.UserID
		if n, ok := ti.Extra["name"].(string); ok && n != "" {
			start.Client = n
		}
	}
	st, release, err := s.cfg.Runs.Attach(r.Context(), key, start)
	if err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	defer release(true)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.WriteHeader(http.StatusOK)
	ping := func() bool {
		if _, err := w.Write([]byte(": gatehouse\n\n")); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !ping() {
		return
	}
	t := time.NewTicker(presencePing)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-st.Live.Context().Done():
			return
		case <-t.C:
			if !ping() {
				return
			}
		}
	}
}
