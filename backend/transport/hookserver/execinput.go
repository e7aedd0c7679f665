package hookserver

import (
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/randid"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// A command an agent runs on a terminal it made for it (Codex's tty
// sessions, Gemini CLI's interactive shell) reads what the model or the
// person types there. Through Gatehouse that terminal is `gatehouse
// exec`'s stdin: exec posts what it reads under the key the answer gave,
// and the command reads it as its own stdin. Nothing of it is recorded:
// it may be a passphrase typed at a prompt.

// inputs are the running commands that take input, by key.
type inputs struct {
	mu sync.Mutex
	by map[string]*input
}

// input is one command's stdin as it comes.
type input struct {
	token string // only the agent token that ran the command may type into it
	w     *io.PipeWriter
	ended chan struct{} // the command has ended
	taken bool          // a post is feeding it
}

// open makes a stdin for a command the agent token tok runs. end must be
// called when the command has ended: it ends a post still feeding it.
func (in *inputs) open(tok string) (key string, stdin io.Reader, end func()) {
	r, w := io.Pipe()
	key = randid.New("i", 16) // 128 random bits: another agent cannot guess it
	it := &input{token: tok, w: w, ended: make(chan struct{})}
	in.mu.Lock()
	if in.by == nil {
		in.by = map[string]*input{}
	}
	in.by[key] = it
	in.mu.Unlock()
	return key, r, func() {
		in.mu.Lock()
		delete(in.by, key)
		in.mu.Unlock()
		close(it.ended)
		// The sandbox's copy into the command stops reading, and a post
		// blocked writing gives up.
		_ = r.Close()
	}
}

// take hands the input under key to one post from tok.
func (in *inputs) take(key, tok string) (*input, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	it, ok := in.by[key]
	if !ok || it.token != tok || it.taken {
		return nil, false
	}
	it.taken = true
	return it, true
}

// serveExecInput feeds a running command's stdin with the request body
// as it comes, until the body ends (the command then reads its end) or
// the command does.
func (s *Server) serveExecInput(w http.ResponseWriter, r *http.Request) {
	it, ok := s.inputs.take(r.Header.Get(hookwire.InputHeader), identity(r).token)
	if !ok {
		// Unknown, ended, already fed, or another agent's.
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no running command takes input under this key"})
		return
	}
	rc := http.NewResponseController(w)
	// The body is read while the command runs, and the answer may come
	// before it ends; without this the server would read the rest of a
	// body that never ends before answering.
	if err := rc.EnableFullDuplex(); err != nil {
		s.cfg.Logger.Debug("feed a command's input", "err", err)
	}
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(it.w, r.Body)
		copied <- err
	}()
	select {
	case err := <-copied:
		// nil: the agent's stdin ended, and so does the command's.
		_ = it.w.CloseWithError(err)
	case <-it.ended:
		// The body read blocks until the agent types again: end it now.
		_ = rc.SetReadDeadline(time.Now())
		<-copied
	}
	w.WriteHeader(http.StatusNoContent)
}
