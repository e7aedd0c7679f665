package container

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
	"github.com/gatehouse-dev/gatehouse/sandbox/standin"
)

// A workspace secret is covered by a stand-in of its shape (git inside
// finds a tracked .env unchanged), and a secret whose shape changed
// makes the cover stale, so the next run gets a fresh container rather
// than a stand-in git would see as a change.
func TestCoverStandsInForSecrets(t *testing.T) {
	ws := t.TempDir()
	env := filepath.Join(ws, ".env")
	if err := os.WriteFile(env, []byte("API_KEY=value-4711\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := workspaceCover([]string{ws}, protect.Exposure{}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.release()
	var src string
	for _, m := range c.mounts {
		if strings.HasSuffix(m, ",target="+env+",readonly") {
			src = strings.TrimSuffix(strings.TrimPrefix(m, "type=bind,source="), ",target="+env+",readonly")
		}
	}
	if src == "" {
		t.Fatalf("no mount covers .env: %q", c.mounts)
	}
	if standin.Shape(src) != standin.Shape(env) {
		t.Errorf("the cover's shape %s, the secret's %s", standin.Shape(src), standin.Shape(env))
	}
	if b, _ := os.ReadFile(src); strings.Contains(string(b), "value-4711") {
		t.Errorf("the cover holds the secret: %q", b)
	}
	if c.stale([]string{ws}, protect.Exposure{}) {
		t.Error("the cover is stale before anything changed")
	}
	if err := os.WriteFile(env, []byte("API_KEY=another-value\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !c.stale([]string{ws}, protect.Exposure{}) {
		t.Error("the cover is not stale after the secret changed")
	}
}
