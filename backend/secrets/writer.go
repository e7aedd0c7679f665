package secrets

import (
	"bytes"
	"io"
)

// maxHold bounds how much a Writer buffers while waiting for a token to end;
// past it the held text is redacted as if the stream had ended there.
const maxHold = 256 << 10

// Writer redacts a stream written in arbitrary chunks. It holds back just
// enough that a secret split across two Writes is still seen whole: a
// tail that begins an exact value, and a token shape that has begun but
// not ended.
// Close flushes the rest; it does not close the underlying writer.
type Writer struct {
	r    *Redactor
	w    io.Writer
	buf  []byte
	out  []byte
	prev int // last byte already emitted, for token boundaries; -1 at start
	err  error
}

// NewWriter returns a redacting writer in front of w.
func (r *Redactor) NewWriter(w io.Writer) *Writer {
	return &Writer{r: r, w: w, prev: -1}
}

// Stream is NewWriter as an io.WriteCloser.
func (r *Redactor) Stream(w io.Writer) io.WriteCloser { return r.NewWriter(w) }

// Write buffers p and passes on everything that can no longer be part of a
// secret. It reports len(p) unless the underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	w.flush(false)
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Close redacts and writes whatever is still held.
func (w *Writer) Close() error {
	if w.err == nil {
		w.flush(true)
	}
	return w.err
}

func (w *Writer) flush(final bool) {
	spans, pending := w.r.find(w.buf, w.prev, final)
	cut := len(w.buf)
	if !final {
		// Hold back only a tail that may still become a known value: an
		// exact value starting before cut ends inside buf, so find saw it,
		// and a command's last line reaches the agent at once.
		cut = min(len(w.buf)-w.r.partialTail(w.buf), pending)
		for _, s := range spans {
			if s.end > cut && s.start < cut {
				cut = s.start
			}
		}
		if cut <= 0 {
			if len(w.buf) <= maxHold {
				return
			}
			// Something token-like has run on for too long: treat the held
			// bytes as complete, keeping only the exact-value tail.
			cut = len(w.buf) - max(w.r.maxExact-1, 0)
			spans, _ = w.r.find(w.buf[:cut], w.prev, true)
		}
	}
	var keep []span
	for _, s := range spans {
		if s.end <= cut {
			keep = append(keep, s)
		}
	}
	w.out = apply(w.out[:0], w.buf[:cut], keep)
	if len(w.out) > 0 {
		if _, err := w.w.Write(w.out); err != nil {
			w.err = err
			return
		}
	}
	if cut > 0 {
		w.prev = int(w.buf[cut-1])
	}
	w.buf = append(w.buf[:0], w.buf[cut:]...)
}

// partialTail is the length of the longest end of b that begins some
// exact value without holding all of it: what a stream must hold back
// until it sees whether the value follows.
func (r *Redactor) partialTail(b []byte) int {
	for k := min(len(b), r.maxExact-1); k >= 1; k-- {
		s := b[len(b)-k:]
		if k == 1 {
			if r.exactStart[s[0]] {
				return 1
			}
			continue
		}
		p := uint16(s[0])<<8 | uint16(s[1])
		if !r.first2[p] {
			continue
		}
		for _, idx := range r.byPref[p] {
			if bytes.HasPrefix(r.exact[idx].value, s) {
				return k
			}
		}
	}
	return 0
}
