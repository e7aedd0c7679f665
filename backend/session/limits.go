package session

import (
	"fmt"
	"time"
)

// Limits are a session's budgets: the cost circuit breaker. Zero means no
// limit for that budget.
type Limits struct {
	MaxCalls    int64
	Wall        time.Duration
	ExecTime    time.Duration // total time commands ran
	OutputBytes int64
	// Tokens bounds the tokens the agent's model read and wrote, as the
	// agent itself records them (backend/agentusage); 0 is no budget.
	Tokens int64
}

// DefaultLimits stop a runaway agent long before it costs much, yet rarely
// interrupt real work.
func DefaultLimits() Limits {
	return Limits{MaxCalls: 5000, Wall: 12 * time.Hour, ExecTime: 2 * time.Hour, OutputBytes: 1 << 30}
}

// Spent names the first budget the session has gone past at now ("5000
// tool calls"), or "" while it is within all of them. The name is what the
// person reads on the limit card and in the audit.
func (l Limits) Spent(info Info, now time.Time) string {
	switch {
	case l.MaxCalls > 0 && info.Calls > l.MaxCalls:
		return fmt.Sprintf("%d tool calls", l.MaxCalls)
	case l.Wall > 0 && now.Sub(info.StartedAt) > l.Wall:
		return fmt.Sprintf("%s of wall-clock time", l.Wall)
	case l.ExecTime > 0 && execTime(info) > l.ExecTime:
		return fmt.Sprintf("%s of command run time", l.ExecTime)
	case l.OutputBytes > 0 && info.OutputBytes > l.OutputBytes:
		return fmt.Sprintf("%d MiB of output", l.OutputBytes>>20)
	}
	return ""
}

// Doubled extends every spent budget to twice what is used at now, so an
// extension the person allows lasts as long again as the session has run.
func (l Limits) Doubled(info Info, now time.Time) Limits {
	if l.MaxCalls > 0 && info.Calls >= l.MaxCalls {
		l.MaxCalls = 2 * info.Calls
	}
	if wall := now.Sub(info.StartedAt); l.Wall > 0 && wall >= l.Wall {
		l.Wall = 2 * wall
	}
	if used := execTime(info); l.ExecTime > 0 && used >= l.ExecTime {
		l.ExecTime = 2 * used
	}
	if l.OutputBytes > 0 && info.OutputBytes >= l.OutputBytes {
		l.OutputBytes = 2 * info.OutputBytes
	}
	return l
}

// TokensSpent names the token budget when used (a known count) is past
// it, else "". An unknown count spends nothing: Gatehouse never stops an
// agent on a number it cannot vouch for.
func (l Limits) TokensSpent(used int64, known bool) string {
	if l.Tokens > 0 && known && used > l.Tokens {
		return fmt.Sprintf("%d tokens", l.Tokens)
	}
	return ""
}

// execTime is how long the session's commands have run.
func execTime(info Info) time.Duration { return time.Duration(info.CPUMillis) * time.Millisecond }

// Limits returns the session's current budgets.
func (s *State) Limits() Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limits
}

// SetLimits changes the session's budgets live (the person, from the UI).
func (s *State) SetLimits(l Limits) {
	s.mu.Lock()
	s.limits = l
	s.mu.Unlock()
}

// ExtendTokens doubles the token budget to twice what is used.
func (s *State) ExtendTokens(used int64) {
	s.mu.Lock()
	if s.limits.Tokens > 0 && used >= s.limits.Tokens {
		s.limits.Tokens = 2 * used
	}
	s.mu.Unlock()
}

// ExtendSpent doubles the session's spent budgets (see Doubled) against
// info: the person allowed it to go on. It doubles the budgets as they
// are now, which the person may have changed while the card waited.
func (s *State) ExtendSpent(info Info, now time.Time) {
	s.mu.Lock()
	s.limits = s.limits.Doubled(info, now)
	s.mu.Unlock()
}
