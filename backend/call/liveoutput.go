package call

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// maxLine bounds a line passed on or sampled past the limit.
const maxLine = 4 << 10

// sampleEvery is how often a stream past its limit passes on a line
// while the command runs, so a long build still shows where it is.
const sampleEvery = 2 * time.Second

// liveOutput is one of a command's streams as a transport shows it while
// the command runs (Request.Stdout, Stderr), redacted as it goes: whole up
// to the capture's limit, then one line now and then, and at the end,
// when the stream was longer, its last part as the result keeps it.
type liveOutput struct {
	red   io.WriteCloser
	limit int64 // passed on whole up to here, and to the end of its line
	sent  int64 // passed on whole
	total int64
	// endsLine: what was passed on whole ends a line.
	endsLine bool
	// Past the limit: the line being written, and when one last went.
	past      bool
	line      []byte
	skipping  bool // inside a line that began before the limit
	sampledAt time.Time
	now       func() time.Time
}

// liveOutput wraps a request's writer for a stream captured up to limit
// bytes; nil for no writer.
func (r *Runner) liveOutput(w io.Writer, limit int64) *liveOutput {
	if w == nil {
		return nil
	}
	l := &liveOutput{red: nopCloser{w}, limit: limit, now: time.Now}
	if r.deps.Redact != nil {
		l.red = r.deps.Redact.Stream(w)
	}
	return l
}

// writer is l as a sandbox.Spec stream: a nil interface when there is none.
func (l *liveOutput) writer() io.Writer {
	if l == nil {
		return nil
	}
	return l
}

func (l *liveOutput) Write(p []byte) (int, error) {
	n := len(p)
	l.total += int64(n)
	for !l.past && len(p) > 0 {
		var k int64
		switch {
		case l.sent < l.limit:
			k = min(int64(len(p)), l.limit-l.sent)
		case !l.endsLine && l.sent < l.limit+maxLine:
			// The line the limit cut goes whole, up to maxLine more.
			k = min(int64(len(p)), l.limit+maxLine-l.sent)
			if i := bytes.IndexByte(p[:k], '\n'); i >= 0 {
				k = int64(i) + 1
			}
		default:
			l.past, l.skipping, l.sampledAt = true, !l.endsLine, l.now()
			newline := "\n" // after a line cut at maxLine
			if l.endsLine {
				newline = ""
			}
			if _, err := fmt.Fprintf(l.red, "%s[gatehouse: the output passed %s; until the command ends, a line of it every %s]\n", newline, size(l.limit), sampleEvery); err != nil {
				return 0, err
			}
			continue
		}
		if _, err := l.red.Write(p[:k]); err != nil {
			return 0, err
		}
		l.sent += k
		l.endsLine = p[k-1] == '\n'
		p = p[k:]
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if !l.skipping && len(l.line) < maxLine {
				l.line = append(l.line, p[:min(len(p), maxLine-len(l.line))]...)
			}
			break
		}
		if !l.skipping {
			l.line = append(l.line, p[:min(i, max(maxLine-len(l.line), 0))]...)
			if now := l.now(); now.Sub(l.sampledAt) >= sampleEvery && len(bytes.TrimSpace(l.line)) > 0 && !encodedLine(l.line) {
				l.sampledAt = now
				if _, err := l.red.Write(append(l.line, '\n')); err != nil {
					return 0, err
				}
			}
		}
		l.line, l.skipping, p = l.line[:0], false, p[i+1:]
	}
	return n, nil
}

// finish passes on, for a stream longer than the limit, the end that the
// sandbox's capture kept (captured is the stream as the result holds
// it), and what the redactor still holds back.
func (l *liveOutput) finish(captured []byte, truncated bool) error {
	if l == nil {
		return nil
	}
	if truncated {
		tail := captured[max(len(captured)-sandbox.CaptureTail(l.limit), 0):]
		// What of it was passed on whole already.
		if seen := l.sent - (l.total - int64(len(tail))); seen > 0 {
			tail = tail[min(seen, int64(len(tail))):]
		}
		if _, err := fmt.Fprintf(l.red, "\n[gatehouse: %d bytes in all; the last %d follow]\n", l.total, len(tail)); err != nil {
			return err
		}
		if _, err := l.red.Write(tail); err != nil {
			return err
		}
	}
	return l.red.Close()
}

// encodedLine reports a line that is one long run of base64: alone, out
// of the lines around it, the redactor cannot tell a private key's body
// from any other, so such a line is never sampled.
func encodedLine(b []byte) bool {
	b = bytes.TrimSpace(b)
	if len(b) < 32 {
		return false
	}
	for _, c := range b {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// size says n bytes as a person reads it.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
