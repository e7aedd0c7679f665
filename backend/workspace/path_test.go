package workspace

import (
	"slices"
	"testing"
)

func TestSplitRel(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"src/pkg/x.go", []string{"src", "pkg", "x.go"}},
		{"a/", []string{"a"}},
	} {
		if got := SplitRel(c.rel); !slices.Equal(got, c.want) {
			t.Errorf("SplitRel(%q) = %q, want %q", c.rel, got, c.want)
		}
	}
}
