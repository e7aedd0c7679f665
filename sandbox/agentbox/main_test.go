package agentbox

import (
	"os"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// The test binary doubles as the sandbox's first process (and, on
// Landlock, as the sandbox helper).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == InitEntry {
		os.Exit(Init(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == initproc.Entry {
		os.Exit(initproc.Main(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == serveOnceEntry {
		os.Exit(serveOnce(os.Args[2]))
	}
	os.Exit(m.Run())
}
