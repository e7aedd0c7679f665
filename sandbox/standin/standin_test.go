package standin

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMakeCopiesTheShapeNotTheContent(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	secret := filepath.Join(dir, ".env")
	if err := os.WriteFile(secret, []byte("API_KEY=value-4711\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2024, 5, 1, 12, 0, 0, 123456789, time.UTC)
	if err := os.Chtimes(secret, when, when); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.key")
	if err := os.WriteFile(big, bytes.Repeat([]byte("k"), fill+10), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(secret, link)

	got := Make(out, []string{secret, big, empty, link, filepath.Join(dir, "missing")})
	if len(got) != 2 {
		t.Fatalf("stand-ins %v: want one for .env and big.key only", got)
	}
	b, err := os.ReadFile(got[secret])
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "##################\n" {
		t.Errorf(".env's stand-in holds %q", b)
	}
	if Shape(got[secret]) != Shape(secret) {
		t.Errorf("shape %s, secret's %s", Shape(got[secret]), Shape(secret))
	}
	if b, _ := os.ReadFile(got[big]); len(b) != fill+10 || bytes.Contains(b, []byte("k")) {
		t.Errorf("big stand-in: %d bytes, holds the secret: %v", len(b), bytes.Contains(b, []byte("k")))
	}
}

func TestShapeChangesWithTheSecret(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".env")
	os.WriteFile(p, []byte("A=1\n"), 0o600)
	before := Shape(p)
	os.WriteFile(p, []byte("A=12\n"), 0o600)
	if Shape(p) == before {
		t.Error("a longer secret keeps its shape")
	}
	os.Remove(p)
	if Shape(p) != "missing" {
		t.Errorf("a removed secret's shape: %s", Shape(p))
	}
}
