package secrets

import (
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// Live is a Redactor whose values can grow while the daemon runs: the
// configured secrets it starts with, plus values learnt later (a
// workspace's .env, read when a session starts there and again when the
// file changes). Each use takes the current Redactor, which is immutable,
// so a result is redacted with one consistent set of values.
type Live struct {
	base []Value
	cur  atomic.Pointer[Redactor]
	// before, if set, runs before each use: it may call Set.
	before func()

	mu    sync.Mutex
	extra []Value
}

// NewLive starts with base (configured secrets first: a value listed
// twice keeps its first name).
func NewLive(base ...[]Value) *Live {
	l := &Live{}
	for _, vs := range base {
		l.base = append(l.base, vs...)
	}
	l.cur.Store(NewRedactor(l.base))
	return l
}

// BeforeUse sets f to run before each redaction (a cheap check that the
// learnt values are current). Set it before the first use.
func (l *Live) BeforeUse(f func()) { l.before = f }

// Set replaces the learnt values, rebuilding the Redactor when they
// changed.
func (l *Live) Set(extra []Value) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Equal(extra, l.extra) {
		return
	}
	l.extra = slices.Clone(extra)
	l.cur.Store(NewRedactor(l.base, l.extra))
}

// Current is the Redactor with every value known now.
func (l *Live) Current() *Redactor {
	if l.before != nil {
		l.before()
	}
	return l.cur.Load()
}

// String is Current().String.
func (l *Live) String(s string) string { return l.Current().String(s) }

// Window is Current().Window.
func (l *Live) Window(b []byte, start, end int) []byte { return l.Current().Window(b, start, end) }

// Bytes is Current().Bytes.
func (l *Live) Bytes(b []byte) []byte { return l.Current().Bytes(b) }

// JSON is Current().JSON.
func (l *Live) JSON(b []byte) ([]byte, error) { return l.Current().JSON(b) }

// Stream is Current().Stream: the stream keeps the values known when it
// began.
func (l *Live) Stream(w io.Writer) io.WriteCloser { return l.Current().Stream(w) }
