package workspace

import "testing"

func TestInsideAny(t *testing.T) {
	tests := []struct {
		p     string
		roots []string
		want  bool
	}{
		{"/src/app", []string{"/src"}, true},
		{"/src", []string{"/src"}, true},
		{"/srcx/app", []string{"/src"}, false},
		{"/anything", []string{"/"}, true},
		{"/src", []string{"/other", "/src/app"}, false},
		{"/a", nil, false},
	}
	for _, tt := range tests {
		if got := InsideAny(tt.p, tt.roots); got != tt.want {
			t.Errorf("InsideAny(%s, %q) = %v, want %v", tt.p, tt.roots, got, tt.want)
		}
	}
}
