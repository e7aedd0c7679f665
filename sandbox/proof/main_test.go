package proof

import (
	"fmt"
	"os"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// The test binary doubles as the sandbox helper, as gatehouse does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == initproc.Entry {
		os.Exit(initproc.Main(os.Args[2:]))
	}
	// As the daemon does (in its data dir): spare placeholders in a
	// private directory, renamed into workspaces on the same filesystem.
	pool, err := os.MkdirTemp("", "gatehouse-placeholders-")
	if err == nil {
		err = protect.Shared.UsePool(pool)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "placeholder pool:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(pool)
	os.Exit(code)
}
