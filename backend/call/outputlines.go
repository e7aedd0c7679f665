package call

import (
	"bufio"
	"bytes"
	"strings"
)

// eachLine hands f each line of outputs (a command's stderr, then its
// stdout), with its lowercase form, until f returns false.
func eachLine(outputs [][]byte, f func(line, lower string) bool) {
	for _, out := range outputs {
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 0, 4096), 64<<10)
		for sc.Scan() {
			line := sc.Text()
			if !f(line, strings.ToLower(line)) {
				return
			}
		}
	}
}

// saysAny reports whether lower holds one of markers.
func saysAny(lower string, markers []string) bool {
	for _, m := range markers {
		if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}
