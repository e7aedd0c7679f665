package call

import (
	"bytes"
	"slices"
)

// commandOutput is a command's output (its stderr, then its stdout), each
// stream with an ASCII lower-case copy, made once for every note that
// looks for messages in it. A stream may be a whole MiB of a test runner's
// lines, none of which needs a note: the markers are looked for in the
// whole stream at once, and only the lines that hold one are read.
type commandOutput struct {
	streams []outputStream
}

type outputStream struct{ text, lower []byte }

func newCommandOutput(streams ...[]byte) *commandOutput {
	o := &commandOutput{}
	for _, s := range streams {
		o.streams = append(o.streams, outputStream{text: s, lower: asciiLower(s)})
	}
	return o
}

// asciiLower is b with ASCII letters in lower case, the same length (the
// markers are ASCII; a line's offsets stay those of the text).
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// linesWith hands f each line that holds one of markers (lower case), in
// order, stream by stream, with its lower-case form, until f returns
// false.
func (o *commandOutput) linesWith(markers []string, f func(line, lower string) bool) {
	for _, s := range o.streams {
		var starts []int
		for _, m := range markers {
			mb := []byte(m)
			for off := 0; ; {
				i := bytes.Index(s.lower[off:], mb)
				if i < 0 {
					break
				}
				at := off + i
				start := bytes.LastIndexByte(s.lower[:at], '\n') + 1
				starts = append(starts, start)
				end := bytes.IndexByte(s.lower[at:], '\n')
				if end < 0 {
					break
				}
				off = at + end + 1 // the next line: one marker is enough
			}
		}
		slices.Sort(starts)
		for _, start := range slices.Compact(starts) {
			end := bytes.IndexByte(s.text[start:], '\n')
			if end < 0 {
				end = len(s.text) - start
			}
			if !f(string(s.text[start:start+end]), string(s.lower[start:start+end])) {
				return
			}
		}
	}
}

// has reports whether any line holds one of markers.
func (o *commandOutput) has(markers []string) bool {
	found := false
	o.linesWith(markers, func(string, string) bool {
		found = true
		return false
	})
	return found
}
