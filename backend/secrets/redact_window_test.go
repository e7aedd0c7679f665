package secrets

import "testing"

// TestWindow: a window of text is redacted as it reads within the whole:
// a secret that begins before the window or ends after it is replaced
// where the window holds part of it, and what is not secret is kept.
func TestWindow(t *testing.T) {
	const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2c3d4e5f6Zm9vYmFyYmF6cXV4\n-----END RSA PRIVATE KEY-----\n"
	text := "head\n" + key + "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 tail\n"
	r := NewRedactor()
	at := func(s string) int {
		for i := range text {
			if text[i:i+len(s)] == s {
				return i
			}
		}
		t.Fatalf("no %q", s)
		return 0
	}
	tests := []struct {
		name       string
		start, end int
		want       string
	}{
		{"inside the key's body", at("MIIE") + 4, at("-----END"), "[REDACTED:private_key]"},
		{"the key's end only", at("-----END"), at("token"), "[REDACTED:private_key]\n"},
		{"the token's head", at("token"), at("ghp_") + 8, "token [REDACTED:github_token]"},
		{"the token's tail", at("ghp_") + 8, len(text), "[REDACTED:github_token] tail\n"},
		{"nothing secret", 0, 5, "head\n"},
	}
	for _, tt := range tests {
		if got := string(r.Window([]byte(text), tt.start, tt.end)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
