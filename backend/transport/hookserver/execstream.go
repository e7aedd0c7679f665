package hookserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// frameDelay is how long output may wait to be sent with what follows it:
// a command writing a line at a time (stderr is unbuffered) would
// otherwise cost a frame and a flush per line.
const frameDelay = 10 * time.Millisecond

// frameBatch is how much waiting output is sent at once, without waiting.
const frameBatch = 32 << 10

// frames writes a streamed exec answer: the command's output as the
// runner passes it on (redacted), in the order it came, a few
// milliseconds' worth per flush, then the result. Its two streams write
// from goroutines of their own.
type frames struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	enc     *json.Encoder
	started bool
	pending []hookwire.ExecFrame
	size    int
	timer   *time.Timer
	err     error
}

func newFrames(w http.ResponseWriter) *frames {
	return &frames{w: w, enc: json.NewEncoder(w)}
}

// output queues a piece of one stream, joined to the last piece when that
// was the same stream's, and sends the queue when it is large.
func (f *frames) output(text string, stderr bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	if n := len(f.pending); n > 0 && (f.pending[n-1].Stderr != "") == stderr {
		if stderr {
			f.pending[n-1].Stderr += text
		} else {
			f.pending[n-1].Stdout += text
		}
	} else if stderr {
		f.pending = append(f.pending, hookwire.ExecFrame{Stderr: text})
	} else {
		f.pending = append(f.pending, hookwire.ExecFrame{Stdout: text})
	}
	f.size += len(text)
	if f.size >= frameBatch {
		return f.sendLocked()
	}
	if f.timer == nil {
		f.timer = time.AfterFunc(frameDelay, func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			_ = f.sendLocked()
		})
	}
	return nil
}

// result sends what is queued, then the result.
func (f *frames) result(res hookwire.ExecResult) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = append(f.pending, hookwire.ExecFrame{Result: &res})
	return f.sendLocked()
}

func (f *frames) sendLocked() error {
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
	if f.err != nil || len(f.pending) == 0 {
		return f.err
	}
	if !f.started {
		f.w.Header().Set("Content-Type", hookwire.StreamType)
		f.w.WriteHeader(http.StatusOK)
		f.started = true
	}
	for _, fr := range f.pending {
		if f.err = f.enc.Encode(fr); f.err != nil {
			return f.err
		}
	}
	f.pending, f.size = f.pending[:0], 0
	f.err = http.NewResponseController(f.w).Flush()
	return f.err
}

// stop keeps anything still queued from being sent: the handler is
// returning, and nothing may write the answer after it.
func (f *frames) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
	if f.err == nil {
		f.err = errStopped
	}
}

var errStopped = errors.New("the answer has ended")

// begun reports whether any of the answer has been sent.
func (f *frames) begun() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started || len(f.pending) > 0
}

// frameStream is one of the command's streams. It holds back a UTF-8
// sequence a write cut short, so no character reaches the agent broken
// in two.
type frameStream struct {
	f      *frames
	stderr bool
	held   []byte
	wrote  bool // something came through it
}

func (s *frameStream) Write(p []byte) (int, error) {
	s.wrote = s.wrote || len(p) > 0
	b := append(s.held, p...)
	cut := len(b)
	// At most the last three bytes can begin a sequence still to come.
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	s.held = append([]byte(nil), b[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if err := s.f.output(string(b[:cut]), s.stderr); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush queues what is still held, whole or not.
func (s *frameStream) flush() error {
	if len(s.held) == 0 {
		return nil
	}
	err := s.f.output(string(s.held), s.stderr)
	s.held = nil
	return err
}
