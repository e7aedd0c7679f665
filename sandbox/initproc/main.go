package initproc

import (
	"fmt"
	"os"
)

// mainConfig decodes Main's one argument, the Config, for every platform's
// Main. It says on stderr what is wrong and reports false; Main then exits
// ExitSetupFailed.
func mainConfig(args []string) (Config, bool) {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "gatehouse sandbox: the helper takes exactly one argument; it is started by gatehouse itself.")
		return Config{}, false
	}
	cfg, err := Decode(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return Config{}, false
	}
	return cfg, true
}
