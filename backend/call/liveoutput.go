package call

import "io"

// liveOutput is one of a command's streams as a transport shows it while
// the command runs (Request.Stdout, Stderr): redacted as it goes, and at
// the end completed with what the sandbox's capture kept past the part it
// passed on live (its marker and the stream's last part), so that what
// was shown reads as the command's result does.
type liveOutput struct {
	red  io.WriteCloser
	sent int // bytes the capture passed on live, before redaction
}

// liveOutput wraps a request's writer; nil for none.
func (r *Runner) liveOutput(w io.Writer) *liveOutput {
	if w == nil {
		return nil
	}
	if r.deps.Redact == nil {
		return &liveOutput{red: nopCloser{w}}
	}
	return &liveOutput{red: r.deps.Redact.Stream(w)}
}

// writer is l as a sandbox.Spec stream: a nil interface when there is none.
func (l *liveOutput) writer() io.Writer {
	if l == nil {
		return nil
	}
	return l
}

func (l *liveOutput) Write(p []byte) (int, error) {
	l.sent += len(p)
	return l.red.Write(p)
}

// finish passes on what the capture kept beyond what it passed on live
// (captured is the stream as the sandbox's result holds it) and what the
// redactor still holds back.
func (l *liveOutput) finish(captured []byte) error {
	if l == nil {
		return nil
	}
	if l.sent < len(captured) {
		if _, err := l.red.Write(captured[l.sent:]); err != nil {
			return err
		}
	}
	return l.red.Close()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
