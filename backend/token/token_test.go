package token

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSetMatchKinds(t *testing.T) {
	a, _ := New()
	c, _ := New()
	var s Set
	s.Replace([]Entry{{ID: "1", Kind: Agent, Name: "default", Hash: Hash(a)}, {ID: "2", Kind: Control, Hash: Hash(c)}})
	tests := []struct {
		tok  string
		kind Kind
		ok   bool
	}{
		{a, Agent, true},
		{a, Control, false},
		{c, Control, true},
		{c, Agent, false},
		{"", Agent, false},
		{a[:len(a)-1] + otherHexDigit(a[len(a)-1]), Agent, false},
	}
	for _, tt := range tests {
		if _, ok := s.Match(tt.tok, tt.kind); ok != tt.ok {
			t.Errorf("Match(%q…, %s) = %v, want %v", tt.tok[:min(6, len(tt.tok))], tt.kind, ok, tt.ok)
		}
	}
}

// otherHexDigit differs from c, so a changed token never equals the
// original (a fixed "0" did, one time in sixteen).
func otherHexDigit(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

func TestEnsureCreatesPrivateFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agent.token")
	tok, created, err := Ensure(p)
	if err != nil || !created || len(tok) != 64 {
		t.Fatalf("Ensure = %q %v %v", tok, created, err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v", st.Mode().Perm())
	}
	again, created, err := Ensure(p)
	if err != nil || created || again != tok {
		t.Fatalf("second Ensure = %q %v %v", again, created, err)
	}
	os.Chmod(p, 0o644)
	if _, err := ReadFile(p); err == nil {
		t.Fatal("world-readable token file must be refused")
	}
}
