// Package waitfor lets tests wait for a condition instead of sleeping a
// fixed time and hoping it holds by then: on a loaded machine a fixed
// sleep is too short, and on an idle one it wastes the rest.
package waitfor

import "time"

// Until checks cond, then again every interval, until it holds or
// timeout has passed, and reports whether it held.
func Until(timeout, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
}
