package hookserver

import (
	"encoding/json"
	"net/http"
	"sync"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// frames writes a streamed exec answer: each piece of a command's output
// as the runner passes it on (redacted), flushed at once, then the result.
// Its two streams write from goroutines of their own.
type frames struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	enc     *json.Encoder
	started bool
}

func newFrames(w http.ResponseWriter) *frames {
	return &frames{w: w, enc: json.NewEncoder(w)}
}

func (f *frames) send(fr hookwire.ExecFrame) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.started {
		f.w.Header().Set("Content-Type", hookwire.StreamType)
		f.w.WriteHeader(http.StatusOK)
		f.started = true
	}
	if err := f.enc.Encode(fr); err != nil {
		return err
	}
	return http.NewResponseController(f.w).Flush()
}

// frameStream is one of the command's streams. It holds back a UTF-8
// sequence a write cut short, so no character reaches the agent broken
// in two.
type frameStream struct {
	f      *frames
	stderr bool
	held   []byte
}

func (s *frameStream) Write(p []byte) (int, error) {
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
	if err := s.send(string(b[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush sends what is still held, whole or not.
func (s *frameStream) flush() error {
	if len(s.held) == 0 {
		return nil
	}
	err := s.send(string(s.held))
	s.held = nil
	return err
}

func (s *frameStream) send(text string) error {
	if s.stderr {
		return s.f.send(hookwire.ExecFrame{Stderr: text})
	}
	return s.f.send(hookwire.ExecFrame{Stdout: text})
}
