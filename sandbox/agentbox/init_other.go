//go:build !linux

package agentbox

import (
	"fmt"
	"os"
)

// Init is Linux's: whole-agent runs need bubblewrap.
func Init([]string) int {
	fmt.Fprintln(os.Stderr, "gatehouse run: confining a whole agent needs Linux (bubblewrap)")
	return 126
}
