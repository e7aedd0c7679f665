package approval

import "context"

// Close denies every pending request with msg, and every request filed
// from now on as soon as it is recorded: the daemon is stopping and nobody
// will be there to answer. by names who stopped it (system:shutdown, or
// human when the person quit).
func (b *Broker) Close(ctx context.Context, by, msg string) int {
	d := Decision{Allow: false, Scope: ScopeOnce, By: by, Message: msg}
	b.mu.Lock()
	b.closed = &d
	b.mu.Unlock()
	return b.DenyAll(ctx, by, msg)
}
