// Package oneline turns a program's output into the one line a message
// quotes: its first line, trimmed and bounded.
package oneline

import "strings"

// Of is the first line of out, at most max bytes (cut with "…"), or
// empty when out holds nothing but blanks.
func Of(out string, max int, empty string) string {
	s := strings.TrimSpace(out)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	if s == "" {
		return empty
	}
	return s
}
