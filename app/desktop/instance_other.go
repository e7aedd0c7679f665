//go:build !linux

package desktop

// raiseRunning has no pre-check here: Wails' own SingleInstanceLock hands a
// second launch to the running app and exits it.
func raiseRunning(string, []string) bool { return false }

// ShowRunning is not available here; the caller opens the web UI instead.
func ShowRunning(string) bool { return false }
