package call

import (
	"testing"
)

// TestProgressLines: the latest whole line of either stream, a progress
// bar's redrawn line included, without escapes or control characters.
func TestProgressLines(t *testing.T) {
	p := &runProgress{}
	out, errOut := p.stream(), p.stream()
	for _, c := range []struct {
		w     *progressLines
		write string
		want  string
	}{
		{out, "building", ""},
		{out, " pkg/a\n", "building pkg/a"},
		{errOut, "\x1b[32mok\x1b[0m\tpkg/b\n\n", "ok pkg/b"},
		{out, "  10%\r  55%\r", "55%"},
		{out, "half a li", "55%"},
		{errOut, "bell\x07 here\n", "bell here"},
	} {
		if n, err := c.w.Write([]byte(c.write)); n != len(c.write) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", c.write, n, err)
		}
		if p.last != c.want {
			t.Errorf("after %q: %q, want %q", c.write, p.last, c.want)
		}
	}
}
