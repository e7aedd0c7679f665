package call

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// runProgressEvery is how often a running command's progress may be
// reported: its latest line, when it printed one since.
const runProgressEvery = time.Second

// maxProgressLine bounds the line a progress report carries, in runes.
const maxProgressLine = 200

// runProgress reports a running command through the request's Progress,
// for a transport that shows no output until the call ends (MCP): the
// latest line it printed (redacted, as the runner's live output is) at
// most once a second, and every keepAliveEvery that it still runs. A
// client then shows what the command is doing, and one that gives up on
// a call that says nothing for a while (Claude Code aborts an MCP tool
// silent for five minutes, over HTTP) waits for a long build.
type runProgress struct {
	progress func(string)
	mu       sync.Mutex
	last     string // the latest line, "" for none yet
	stop     chan struct{}
}

// startRunProgress reports on progress until the returned stop.
func startRunProgress(ctx context.Context, progress func(string)) *runProgress {
	p := &runProgress{progress: progress, stop: make(chan struct{})}
	go p.report(ctx)
	return p
}

func (p *runProgress) report(ctx context.Context) {
	t := time.NewTicker(runProgressEvery)
	defer t.Stop()
	// Nothing at once: most commands end within the first second.
	sent, sentAt := "", time.Now()
	for {
		select {
		case <-t.C:
		case <-p.stop:
			return
		case <-ctx.Done():
			return
		}
		p.mu.Lock()
		last := p.last
		p.mu.Unlock()
		switch {
		case last != sent:
			p.progress("running: " + last)
		case time.Since(sentAt) >= keepAliveEvery:
			p.progress("still running")
		default:
			continue
		}
		sent, sentAt = last, time.Now()
	}
}

// end stops the reports. It does not wait for one being sent: a client
// that stopped reading must not hold up the command's end.
func (p *runProgress) end() { close(p.stop) }

// stream is a writer for one of the command's streams.
func (p *runProgress) stream() *progressLines { return &progressLines{p: p} }

// progressLines finds the lines of one stream; a carriage return ends one
// too, as a progress bar redraws its line.
type progressLines struct {
	p       *runProgress
	partial []byte
}

func (l *progressLines) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			if len(l.partial) < 4<<10 {
				l.partial = append(l.partial, b[:min(len(b), 4<<10-len(l.partial))]...)
			}
			break
		}
		if line := progressText(append(l.partial, b[:i]...)); line != "" {
			l.p.mu.Lock()
			l.p.last = line
			l.p.mu.Unlock()
		}
		l.partial, b = l.partial[:0], b[i+1:]
	}
	return n, nil
}

// progressText is a line as a client may show it: without control
// characters or terminal escapes, trimmed, and cut to maxProgressLine.
func progressText(b []byte) string {
	var out strings.Builder
	n := 0
	for i := 0; i < len(b) && n < maxProgressLine; {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == 0x1b:
			// An escape sequence: skip to its final letter.
			i += size
			for i < len(b) && !(b[i] >= '@' && b[i] <= '~' && b[i] != '[') {
				i++
			}
			i++
			continue
		case r == '\t':
			out.WriteByte(' ')
		case r == utf8.RuneError && size == 1, unicode.IsControl(r):
		default:
			out.WriteRune(r)
		}
		n++
		i += size
	}
	return strings.TrimSpace(out.String())
}
