package exposure

import (
	"fmt"
	"strings"
	"time"
)

// DefaultFor is how long an exposure lasts when the person names no
// duration, and MaxFor the longest it may: a forgotten exposure ends by
// itself the same day.
const (
	DefaultFor = time.Hour
	MaxFor     = 24 * time.Hour
)

// ParseFor reads a --for value ("" keeps the default). The errors are
// sentences for the person.
func ParseFor(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultFor, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("--for %q is not a duration; give one such as 30m or 2h (at most 24h)", s)
	}
	return d, CheckFor(d)
}

// CheckFor refuses a duration an exposure may not have.
func CheckFor(d time.Duration) error {
	switch {
	case d <= 0:
		return fmt.Errorf("an exposure must last longer than 0; give a duration such as 30m or 2h (at most 24h)")
	case d > MaxFor:
		return fmt.Errorf("an exposure lasts at most 24h, and %s is longer; start a new one tomorrow instead", d)
	}
	return nil
}
