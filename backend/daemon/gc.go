package daemon

import (
	"os"
	"runtime/debug"
)

// gcPercent is the daemon's GOGC. Its live heap is a few MiB, while every
// MCP message the SDK decodes allocates a fresh 32 KiB buffer, so at the
// default of 100 the collector runs every few dozen calls and costs about a
// third of the daemon's CPU. A higher target trades tens of MiB of heap for
// most of that.
const gcPercent = 400

// tuneGC applies gcPercent unless the person set GOGC themselves.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(gcPercent)
}
