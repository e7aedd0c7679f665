package hookserver

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/secrets"
)

// markerEdit refuses an agent's own write or edit whose input holds a
// redaction marker that stands for a secret in a file it changes: the
// model saw the marker (its reads are redacted), never the value, and the
// write would put the marker's text where the person's secret was, or the
// edit matches nothing. It returns the reason, "" when the edit may go.
func (s *Server) markerEdit(input []byte, paths []string) string {
	if s.cfg.Redact == nil || !bytes.Contains(input, []byte(secrets.MarkerPrefix)) {
		return ""
	}
	ms := secrets.Markers(string(input))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue // a new file has no secret to lose
		}
		b, err := io.ReadAll(io.LimitReader(f, maxRedactRead))
		f.Close()
		if err != nil {
			continue
		}
		current := string(b)
		shown := s.cfg.Redact(current)
		for _, m := range ms {
			if strings.Contains(shown, m) && !strings.Contains(current, m) {
				return fmt.Sprintf("This edit holds %s, which stands for a secret in %s that Gatehouse hides from the model: written, the marker's text would replace the secret (or the edit matches nothing). Edit the lines around the secret, leaving it out, and the secret stays as it is.", m, p)
			}
		}
	}
	return ""
}
