package hookserver

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/secrets"
)

// TestRedactedCopy: an agent's own read of any file that holds a private
// key is pointed at a copy without it, text or not; a file too large to
// copy is read as it is when nothing in it needs redacting, wherever the
// key would sit (across the windows it is read in), and blocked when
// something does.
func TestRedactedCopy(t *testing.T) {
	key := []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n")
	filler := func(n int) []byte { return bytes.Repeat([]byte("log line, nothing secret\n"), n/25+1)[:n] }
	big := maxRedactRead + 2*redactOverlap
	tests := []struct {
		name    string
		content []byte
		copied  bool
		tooBig  bool
	}{
		{"plain text", []byte("nothing secret\n"), false, false},
		{"key in text", append([]byte("notes\n"), key...), true, false},
		{"key in Latin-1", append([]byte("caf\xe9\n"), key...), true, false},
		{"key in an archive", append(append([]byte("\x00\x01tar\x00"), key...), 0, 0xff), true, false},
		{"large, nothing secret", filler(big), false, false},
		{"large, key past the first window", append(filler(big), key...), false, true},
		{"large, key across the first cut", append(append(filler(maxRedactRead-40), key...), filler(big)...), false, true},
		{"large, key in the third window", append(filler(2*maxRedactRead+redactOverlap), key...), false, true},
		{"larger, nothing secret", filler(3*maxRedactRead + 7), false, false},
	}
	s := &Server{cfg: Config{Redact: secrets.NewRedactor().String}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			copyPath, changed, err := s.redactedCopy(path, t.TempDir())
			if got := errors.Is(err, errTooLargeToRedact); got != tt.tooBig {
				t.Fatalf("too large to redact: %v (%v), want %v", got, err, tt.tooBig)
			}
			if changed != tt.copied {
				t.Fatalf("copied: %v, want %v", changed, tt.copied)
			}
			if !changed {
				return
			}
			b, err := os.ReadFile(copyPath)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("b3BlbnNzaC1rZXkt")) || !strings.Contains(string(b), "[REDACTED:") || !bytes.HasPrefix(b, tt.content[:4]) {
				t.Errorf("the copy: %q", b)
			}
		})
	}
}
