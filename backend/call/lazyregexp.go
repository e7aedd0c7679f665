package call

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles pattern at its first use rather than at the start
// of every gatehouse command (the hook's and `gatehouse exec`'s among
// them), which link this package but rarely meet an error to read.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
