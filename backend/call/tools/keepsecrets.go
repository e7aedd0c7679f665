package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/fsops"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
)

// The model sees a secret as a marker ("[REDACTED:github_token]"), never
// its value. Written back, a marker would replace the person's secret in
// their file with its own text; an edit whose old text holds one can
// never match what the file holds. Both are refused with what to do
// instead, and the secret stays as it is.

// editKeepsSecrets explains an edit of path that failed (err) or would
// write markers the file does not hold (current is its content).
func editKeepsSecrets(path string, err error, current []byte, old, new string) error {
	if errors.Is(err, fsops.ErrNotFound) {
		if ms := secrets.Markers(old); len(ms) > 0 {
			return call.Errorf("old holds %s, which stands for a secret in %s that Gatehouse hides from you, so it matches nothing in the file; leave the secret's part out of old and new (edit the lines around it) and the secret stays as it is", ms[0], path)
		}
	}
	if err != nil {
		return call.Errorf("%v", err)
	}
	for _, m := range secrets.Markers(new) {
		if !strings.Contains(old, m) && !strings.Contains(string(current), m) {
			return call.Errorf("new holds %s, which stands for a secret Gatehouse hides from you: the file would get the marker's text, not the secret; leave the secret's part out of new", m)
		}
	}
	return nil
}

// writeKeepsSecrets refuses a write of content over a file (current is
// what it holds) whose secrets content has only as markers.
func writeKeepsSecrets(path string, current []byte, content string, redact func(string) string) error {
	ms := secrets.Markers(content)
	if len(ms) == 0 || current == nil {
		return nil // nothing written as a marker, or no secret to lose
	}
	shown := redact(string(current))
	for _, m := range ms {
		if strings.Contains(shown, m) && !strings.Contains(string(current), m) {
			return call.Errorf("content holds %s, which stands for a secret in %s that Gatehouse hides from you; writing it would replace the secret with the marker. Change the file with edit_file instead, leaving the secret's lines out, and the secret stays as it is", m, path)
		}
	}
	return nil
}

// markerNote tells the model that a marker it wrote into a file is text
// there, not the secret it stood for; "" when it wrote none.
func markerNote(content string) string {
	ms := secrets.Markers(content)
	if len(ms) == 0 {
		return ""
	}
	return fmt.Sprintf("%s is in the file as text: the secret it stood for was hidden from you and is not there", ms[0])
}
