//go:build !linux

package desktop

import "errors"

// There is no session bus here: a second launch finds the data dir locked
// by the daemon and says so.
func raiseRunning(string, []string) bool { return false }

// ShowRunning is not available here; the caller opens the web UI instead.
func ShowRunning(string) bool { return false }

// RequestQuit is not available here.
func RequestQuit(string) error {
	return errors.New("quitting the app from the tray is not supported on this system; quit from its menu")
}

func claimInstance(string, func([]string)) (func(), error) { return func() {}, nil }

// Prewarm is not available here.
func Prewarm(string) {}
