// Command gatehouse-sandbox-init is the sandbox helper on its own: the same
// code as `gatehouse __sandbox-init`, in a binary small enough to start in
// about a millisecond. The desktop build of gatehouse links GTK and WebKit,
// whose loading would otherwise add ~100 ms to every sandboxed command.
// Installed next to gatehouse, it is picked up automatically, for a
// command's sandbox and as the first process of a confined agent's
// (`gatehouse run`, agentbox.InitEntry); and as the hook an agent runs
// around each of its tools (agentconn.HookMain) and the `gatehouse exec`
// its shell runs for each command the hook cleared (agentconn.Main), so
// those too pay a millisecond, not the full binary's start.
package main

import (
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/app/agentconn"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

func main() {
	switch {
	case len(os.Args) > 1 && os.Args[1] == initproc.Entry:
		os.Exit(initproc.Main(os.Args[2:]))
	case len(os.Args) > 1 && os.Args[1] == agentbox.InitEntry:
		os.Exit(agentbox.Init(os.Args[2:]))
	case agentconn.IsExecLine(os.Args[1:]):
		os.Exit(agentconn.Main(os.Args[1:]))
	case agentconn.IsHookLine(os.Args[1:]):
		os.Exit(agentconn.HookMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	fmt.Fprintln(os.Stderr, "gatehouse-sandbox-init is started by gatehouse itself to confine a command; it is not meant to be run by hand.")
	os.Exit(2)
}
