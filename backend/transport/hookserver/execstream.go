package hookserver

import (
	"encoding/json"
	"fmt"
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

// maxQueued bounds the output waiting for a reader that has stopped
// reading (an agent suspended with Ctrl-Z); past it output is left out,
// and the stream says so.
var maxQueued = 16 << 20

// frames writes a streamed exec answer: the command's output as the
// runner passes it on (redacted), in the order it came, a few
// milliseconds' worth per frame, then the result. The runner's writes
// only queue: one goroutine of its own writes to the connection, so an
// agent that stops reading stalls the answer, never the command, the
// kill switch or the call's end.
type frames struct {
	w   http.ResponseWriter
	enc *json.Encoder

	mu      sync.Mutex
	pending []hookwire.ExecFrame
	size    int
	dropped int
	ended   bool  // the result is queued
	err     error // the connection failed
	queued  bool  // something was queued

	wake, urgent chan struct{}
	quit         chan struct{}
	done         chan struct{} // the sender has stopped
}

func newFrames(w http.ResponseWriter) *frames {
	f := &frames{w: w, enc: json.NewEncoder(w), wake: make(chan struct{}, 1), urgent: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
	go f.send()
	return f
}

// output queues a piece of one stream, joined to the last piece when that
// was the same stream's.
func (f *frames) output(text string, stderr bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.err != nil:
		return f.err
	case f.size+len(text) > maxQueued:
		f.dropped += len(text)
		return nil
	}
	f.queued = true
	if n := len(f.pending); n > 0 && f.pending[n-1].Result == nil && (f.pending[n-1].Stderr != "") == stderr {
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
	signal(f.wake)
	return nil
}

// input queues the frame that names the key the command's input is
// posted under; it goes first.
func (f *frames) input(key string) {
	f.mu.Lock()
	f.pending = append(f.pending, hookwire.ExecFrame{Input: key})
	f.queued = true
	f.mu.Unlock()
	// Sent at once: the agent's typing waits on it.
	signal(f.wake)
	signal(f.urgent)
}

// result queues the result after everything queued, and waits until it
// is sent or the connection fails.
func (f *frames) result(res hookwire.ExecResult) error {
	f.mu.Lock()
	f.pending = append(f.pending, hookwire.ExecFrame{Result: &res})
	f.ended, f.queued = true, true
	f.mu.Unlock()
	signal(f.wake)
	signal(f.urgent)
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// stop ends the sender without the result (the handler is returning),
// once any write it is in has ended.
func (f *frames) stop() {
	select {
	case <-f.quit:
	default:
		close(f.quit)
	}
	<-f.done
}

// begun reports whether anything has been queued.
func (f *frames) begun() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued
}

// send writes what is queued until the result has gone or it must stop.
func (f *frames) send() {
	defer close(f.done)
	started := false
	for {
		select {
		case <-f.wake:
		case <-f.quit:
			return
		}
		// Let more output join this frame, unless the result is in.
		t := time.NewTimer(frameDelay)
		select {
		case <-t.C:
		case <-f.urgent:
			t.Stop()
		case <-f.quit:
			t.Stop()
			return
		}
		f.mu.Lock()
		batch, ended, dropped := f.pending, f.ended, f.dropped
		f.pending, f.size, f.dropped = nil, 0, 0
		f.mu.Unlock()
		if dropped > 0 {
			note := fmt.Sprintf("\n[gatehouse: %d bytes of output left out here: the agent was not reading them]\n", dropped)
			batch = append([]hookwire.ExecFrame{{Stderr: note}}, batch...)
		}
		if !started {
			f.w.Header().Set("Content-Type", hookwire.StreamType)
			f.w.WriteHeader(http.StatusOK)
			started = true
		}
		err := f.write(batch)
		if err != nil {
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
			return
		}
		if ended {
			return
		}
	}
}

func (f *frames) write(batch []hookwire.ExecFrame) error {
	for _, fr := range batch {
		if err := f.enc.Encode(fr); err != nil {
			return err
		}
	}
	return http.NewResponseController(f.w).Flush()
}

// signal wakes whoever waits on c, once.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
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
