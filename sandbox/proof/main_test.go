package proof

import (
	"os"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// The test binary doubles as the sandbox helper, as gatehouse does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == initproc.Entry {
		os.Exit(initproc.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}
