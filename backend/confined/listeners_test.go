package confined

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestListenersSayWhenThePathIsTooLong: a data directory too deep for a
// Unix socket's path gets a sentence saying so, not bind's "invalid
// argument"; a short one listens.
func TestListenersSayWhenThePathIsTooLong(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if _, err := makeListeners(deep); err == nil || !strings.Contains(err.Error(), "give the data directory a shorter path") {
		t.Fatalf("a deep data directory: %v", err)
	}
	l, err := makeListeners(t.TempDir())
	if err != nil {
		t.Fatalf("a short one: %v", err)
	}
	l.close()
}
