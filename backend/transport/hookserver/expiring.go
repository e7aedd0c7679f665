package hookserver

import (
	"sync"
	"time"
)

// expiring holds values handed out once, each for at most ttl: a hook's
// state between two requests (a cleared command waiting for `gatehouse
// exec`, an edit between PreToolUse and PostToolUse). Expired values are
// swept whenever one is added, so an agent that never comes back leaks
// nothing.
type expiring[V any] struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]expiringEntry[V]
}

type expiringEntry[V any] struct {
	v       V
	expires time.Time
}

func newExpiring[V any](ttl time.Duration) *expiring[V] {
	return &expiring[V]{ttl: ttl, m: map[string]expiringEntry[V]{}}
}

func (e *expiring[V]) put(k string, v V) {
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	for key, old := range e.m {
		if now.After(old.expires) {
			delete(e.m, key)
		}
	}
	e.m[k] = expiringEntry[V]{v: v, expires: now.Add(e.ttl)}
}

// take hands a value out once, if it has not expired.
func (e *expiring[V]) take(k string) (V, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ent, ok := e.m[k]
	delete(e.m, k)
	if !ok || time.Now().After(ent.expires) {
		var zero V
		return zero, false
	}
	return ent.v, true
}
