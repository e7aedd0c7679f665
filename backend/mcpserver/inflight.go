package mcpserver

import (
	"net/http"
	"sync"
	"time"
)

// inflight counts the POST requests of each MCP session still being
// answered, so a killed session is closed only after its calls have sent
// their error results (closing first would leave agents waiting on an empty
// stream).
type inflight struct {
	mu        sync.Mutex
	bySession map[string]*sync.WaitGroup
}

func (f *inflight) group(id string) *sync.WaitGroup {
	f.mu.Lock()
	defer f.mu.Unlock()
	wg, ok := f.bySession[id]
	if !ok {
		wg = &sync.WaitGroup{}
		f.bySession[id] = wg
	}
	return wg
}

// track wraps the stateful handler.
func (f *inflight) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || id == "" {
			next.ServeHTTP(w, r)
			return
		}
		wg := f.group(id)
		wg.Add(1)
		defer wg.Done()
		next.ServeHTTP(w, r)
	})
}

// drain waits (at most d) for a session's calls to answer, then forgets it.
func (f *inflight) drain(id string, d time.Duration) {
	wg := f.group(id)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
	f.mu.Lock()
	delete(f.bySession, id)
	f.mu.Unlock()
}
