package call

import (
	"bytes"
	"io"
)

// Redactor removes secrets from what leaves the daemon (*secrets.Live is
// the daemon's).
type Redactor interface {
	// String returns s redacted.
	String(s string) string
	// Window returns b[start:end] redacted as it reads within all of b,
	// so that a secret cut by the window's edges is still replaced (a
	// private key's body on a page of a paged read).
	Window(b []byte, start, end int) []byte
	// Stream returns a writer that passes what is written to it on to w
	// redacted, holding back only what may still turn out to be part of a
	// secret (a command's output as it runs); Close passes on the rest.
	Stream(w io.Writer) io.WriteCloser
}

// TextRedactor is a Redactor made of a function on text alone: its
// windows are redacted without the text around them.
type TextRedactor func(string) string

func (f TextRedactor) String(s string) string { return f(s) }

func (f TextRedactor) Window(b []byte, start, end int) []byte {
	return []byte(f(string(b[start:end])))
}

// Stream holds the whole stream until Close: a function on text alone
// cannot say where a secret that began in one write ends.
func (f TextRedactor) Stream(w io.Writer) io.WriteCloser { return &wholeStream{f: f, w: w} }

type wholeStream struct {
	f   TextRedactor
	w   io.Writer
	buf bytes.Buffer
}

func (s *wholeStream) Write(p []byte) (int, error) { return s.buf.Write(p) }

func (s *wholeStream) Close() error {
	_, err := io.WriteString(s.w, s.f(s.buf.String()))
	return err
}
