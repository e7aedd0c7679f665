// Command gatehouse-sandbox-init is the sandbox helper on its own: the same
// code as `gatehouse __sandbox-init`, in a binary small enough to start in
// about a millisecond. The desktop build of gatehouse links GTK and WebKit,
// whose loading would otherwise add ~100 ms to every sandboxed command.
// Installed next to gatehouse, it is picked up automatically.
package main

import (
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != initproc.Entry {
		fmt.Fprintln(os.Stderr, "gatehouse-sandbox-init is started by gatehouse itself to confine a command; it is not meant to be run by hand.")
		os.Exit(2)
	}
	os.Exit(initproc.Main(os.Args[2:]))
}
