package hookserver

import (
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/session/agentrun"
)

// An edit the agent's own tool makes is checkpointed before (PreToolUse)
// and recorded after (PostToolUse); pending holds the clearance between
// the two, keyed by the agent's tool-use id (or its tool and input when
// the agent sends none).
type pendingEdit struct {
	cl      *call.Clearance
	native  string
	expires time.Time
}

type pendingEdits struct {
	mu sync.Mutex
	m  map[string]pendingEdit
}

const pendingTTL = time.Hour

func editKey(run agentrun.Key, useID, tool string, input []byte) string {
	if useID != "" {
		return run.String() + "\x00" + useID
	}
	return run.String() + "\x00" + tool + "\x00" + string(input)
}

func (p *pendingEdits) put(k string, e pendingEdit) {
	e.expires = time.Now().Add(pendingTTL)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for key, old := range p.m {
		if now.After(old.expires) {
			delete(p.m, key)
		}
	}
	p.m[k] = e
}

func (p *pendingEdits) take(k string) (pendingEdit, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[k]
	delete(p.m, k)
	return e, ok
}
