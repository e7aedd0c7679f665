package call

// Redactor removes secrets from what leaves the daemon (*secrets.Live is
// the daemon's).
type Redactor interface {
	// String returns s redacted.
	String(s string) string
	// Window returns b[start:end] redacted as it reads within all of b,
	// so that a secret cut by the window's edges is still replaced (a
	// private key's body on a page of a paged read).
	Window(b []byte, start, end int) []byte
}

// TextRedactor is a Redactor made of a function on text alone: its
// windows are redacted without the text around them.
type TextRedactor func(string) string

func (f TextRedactor) String(s string) string { return f(s) }

func (f TextRedactor) Window(b []byte, start, end int) []byte {
	return []byte(f(string(b[start:end])))
}
