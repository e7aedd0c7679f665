package launch

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrustedSibling(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "gatehouse")
	os.WriteFile(self, []byte("x"), 0o755)
	tests := []struct {
		name  string
		mode  os.FileMode
		dir   bool
		trust bool
	}{
		{"executable, private", 0o755, false, true},
		{"not executable", 0o644, false, false},
		{"group writable", 0o775, false, false},
		{"world writable", 0o757, false, false},
		{"a directory", 0o755, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), HelperName)
			if tt.dir {
				os.Mkdir(p, tt.mode)
			} else {
				os.WriteFile(p, []byte("x"), tt.mode)
				os.Chmod(p, tt.mode)
			}
			if got := trustedSibling(p, self); got != tt.trust {
				t.Fatalf("trustedSibling = %v, want %v", got, tt.trust)
			}
		})
	}
	if trustedSibling(filepath.Join(dir, "missing"), self) {
		t.Fatal("a missing helper was trusted")
	}
}
