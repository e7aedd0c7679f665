package secrets

import "io"

// maxHold bounds how much a Writer buffers while waiting for a token to end;
// past it the held text is redacted as if the stream had ended there.
const maxHold = 256 << 10

// Writer redacts a stream written in arbitrary chunks. It holds back enough
// bytes that a secret split across two Writes is still seen whole: the
// longest exact value, and any token shape that has begun but not ended.
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
		// An exact value starting before cut ends inside buf, so find saw it.
		cut = min(len(w.buf)-max(w.r.maxExact-1, 0), pending)
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
