package agentbox

import (
	"os"
	"testing"
)

// The test binary doubles as the sandbox's first process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == InitEntry {
		os.Exit(Init(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == serveOnceEntry {
		os.Exit(serveOnce(os.Args[2]))
	}
	os.Exit(m.Run())
}
