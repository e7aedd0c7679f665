package exposure

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/portpeers"
)

// Suspects is what Gatehouse sees but does not control: requests relayed
// to the main listener by a proxy or tunnel, and processes connected to
// the daemon's port that are none of its own programs.
type Suspects struct {
	Emit func(ctx context.Context, kind, actor, session string, payload any)
	// Port is the daemon's TCP port.
	Port func() int
	// Every is how often at most a relayed request becomes an audit row;
	// the rows between are counted in the next one.
	Every time.Duration

	mu         sync.Mutex
	last       *Relayed
	total      int
	suppressed int
	lastRow    time.Time
}

// Relayed is the latest relayed request: header names, never values.
type Relayed struct {
	At      time.Time `json:"at"`
	Headers []string  `json:"headers"`
	Method  string    `json:"method"`
	Path    string    `json:"path"`
	From    string    `json:"from"`
	Count   int       `json:"count"` // since the daemon started
}

// Seen is what status shows.
type Seen struct {
	Relayed   *Relayed         `json:"relayed,omitempty"`
	Processes []portpeers.Peer `json:"processes"`
}

// Relay records a refused relayed request, as an audit row
// `exposure.suspected` at most once every Every.
func (s *Suspects) Relay(r *http.Request, headers []string) {
	now := time.Now().UTC()
	s.mu.Lock()
	s.total++
	s.last = &Relayed{At: now, Headers: headers, Method: r.Method, Path: r.URL.Path, From: r.RemoteAddr, Count: s.total}
	every := s.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	if !s.lastRow.IsZero() && now.Sub(s.lastRow) < every {
		s.suppressed++
		s.mu.Unlock()
		return
	}
	s.lastRow = now
	suppressed := s.suppressed
	s.suppressed = 0
	s.mu.Unlock()
	s.Emit(context.WithoutCancel(r.Context()), "exposure.suspected", "system", "", map[string]any{
		"what":    "a request relayed by a proxy or tunnel reached the daemon's port and was refused",
		"headers": headers, "method": r.Method, "path": r.URL.Path, "from": r.RemoteAddr, "not_recorded_before": suppressed,
	})
}

// Seen is the latest relayed request and the unknown processes connected
// to the daemon's port now.
func (s *Suspects) Seen() Seen {
	s.mu.Lock()
	var last *Relayed
	if s.last != nil {
		l := *s.last
		last = &l
	}
	s.mu.Unlock()
	out := Seen{Relayed: last, Processes: []portpeers.Peer{}}
	if s.Port == nil {
		return out
	}
	peers, _ := portpeers.Find(s.Port())
	for _, p := range peers {
		if !known(p) {
			out.Processes = append(out.Processes, p)
		}
	}
	return out
}

// known: Gatehouse's own programs (the bridge agents start, the CLI, the
// tray, the window) and the daemon itself. Anything else holding a
// connection to the daemon's port is shown: an agent that connects over
// HTTP directly shows too, and the person recognises it.
func known(p portpeers.Peer) bool {
	if p.PID == os.Getpid() {
		return true
	}
	if self, err := os.Executable(); err == nil && p.Exe != "" && p.Exe == self {
		return true
	}
	return p.Exe != "" && strings.HasPrefix(filepath.Base(p.Exe), "gatehouse")
}
