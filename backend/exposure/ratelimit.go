package exposure

import (
	"sync"
	"time"
)

// failures counts wrong tokens and cookies. Past maxFails within window
// every attempt is refused until the window passes, right ones too, so
// guessing costs a window per handful of tries. It is one count per
// exposure rather than per address: behind a tunnel every device shares
// the tunnel's address.
type failures struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	times  []time.Time
}

func newFailures(max int, window time.Duration) *failures {
	return &failures{max: max, window: window}
}

// blocked reports whether attempts are refused now.
func (f *failures) blocked(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trim(now)
	return len(f.times) >= f.max
}

// fail records a wrong attempt.
func (f *failures) fail(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trim(now)
	f.times = append(f.times, now)
}

func (f *failures) trim(now time.Time) {
	i := 0
	for i < len(f.times) && now.Sub(f.times[i]) >= f.window {
		i++
	}
	f.times = f.times[i:]
}
