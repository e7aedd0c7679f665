package call

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// commandOutput is a command's output (its stderr, then its stdout), each
// stream with an ASCII lower-case copy, made once for every note that
// looks for messages in it. A stream may be a whole MiB of a test runner's
// lines, none of which needs a note: the markers are looked for in the
// whole stream at once, and only the lines that hold one are read.
type commandOutput struct {
	streams []outputStream
}

type outputStream struct {
	text, lower []byte
	// spans are its lines that hold one of outputMarkers, found on first
	// use (scanned).
	spans   []lineSpan
	scanned bool
}

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

// outputMarkers are every note's markers. The lines of an output that
// hold one are found once, in one pass (linesHolding), and each note
// reads only those.
var outputMarkers = sync.OnceValues(func() (*markerSet, map[string]bool) {
	all := slices.Concat(refusedMarkers, socketFailures, directFailures, privilegeFailures, credentialFailures, refusalErrnos, steeringErrnos)
	known := map[string]bool{}
	for _, m := range all {
		known[m] = true
	}
	return newMarkerSet(all), known
})

// lineSpan is one line of a stream: [start, end).
type lineSpan struct{ start, end int }

// linesHolding are the lines of lower that hold one of set's markers, in
// order.
func linesHolding(lower []byte, set *markerSet) []lineSpan {
	var out []lineSpan
	for off := 0; off < len(lower); {
		at := set.next(lower, off)
		if at < 0 {
			break
		}
		start := bytes.LastIndexByte(lower[:at], '\n') + 1
		end := bytes.IndexByte(lower[at:], '\n')
		if end < 0 {
			end = len(lower)
		} else {
			end += at
		}
		out = append(out, lineSpan{start, end})
		off = end + 1 // one marker is enough for a line
	}
	return out
}

// linesWith hands f each line that holds one of markers (lower case), in
// order, stream by stream, with its lower-case form, until f returns
// false.
func (o *commandOutput) linesWith(markers []string, f func(line, lower string) bool) {
	o.linesIn(o.streams, markers, f)
}

// stderrLinesWith is linesWith on the command's stderr alone.
func (o *commandOutput) stderrLinesWith(markers []string, f func(line, lower string) bool) {
	if len(o.streams) > 0 {
		o.linesIn(o.streams[:1], markers, f)
	}
}

func (o *commandOutput) linesIn(streams []outputStream, markers []string, f func(line, lower string) bool) {
	union, known := outputMarkers()
	shared := true
	for _, m := range markers {
		shared = shared && known[m]
	}
	for i := range streams {
		s := &streams[i]
		var spans []lineSpan
		if shared {
			if !s.scanned {
				s.spans, s.scanned = linesHolding(s.lower, union), true
			}
			spans = s.spans
		} else {
			spans = linesHolding(s.lower, newMarkerSet(markers))
		}
		for _, sp := range spans {
			lower := string(s.lower[sp.start:sp.end])
			if shared && !holdsAny(lower, markers) {
				continue
			}
			if !f(string(s.text[sp.start:sp.end]), lower) {
				return
			}
		}
	}
}

// holdsAny reports whether lower holds one of markers.
func holdsAny(lower string, markers []string) bool {
	for _, m := range markers {
		if strings.Contains(lower, m) {
			return true
		}
	}
	return false
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

// outputNotes are the notes read from both streams of a command's output
// (its network was mode), and the sockets those notes name.
func outputNotes(mode sandbox.NetworkMode, out *commandOutput) (notes, sockets []string) {
	notes = serviceNotes(out)
	for _, n := range []string{directNote(mode, out), privilegeNote(out), credentialNote(out)} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	sockNotes, sockets := socketNotes(out)
	return append(notes, sockNotes...), sockets
}
