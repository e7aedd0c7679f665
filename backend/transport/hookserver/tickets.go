package hookserver

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/session/agentrun"
)

// ticketTTL bounds how long a rewritten command may take to come back;
// agents run it right after the hook answers.
const ticketTTL = 10 * time.Minute

// A ticket is a cleared shell command waiting for `gatehouse exec`: it
// runs once, exactly as cleared, in the run that cleared it.
type ticket struct {
	run     agentrun.Key
	token   string // agent token id that asked
	command string
	cwd     string
	args    []byte // run_command arguments as cleared
	native  string
	cl      *call.Clearance
	expires time.Time
}

type tickets struct {
	mu sync.Mutex
	m  map[string]*ticket
}

func (ts *tickets) issue(t *ticket) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := "t" + hex.EncodeToString(b)
	t.expires = time.Now().Add(ticketTTL)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := time.Now()
	for k, old := range ts.m {
		if now.After(old.expires) {
			delete(ts.m, k)
		}
	}
	ts.m[id] = t
	return id
}

// take hands out a ticket once.
func (ts *tickets) take(id string) (*ticket, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.m[id]
	delete(ts.m, id)
	if !ok || time.Now().After(t.expires) {
		return nil, false
	}
	return t, true
}
