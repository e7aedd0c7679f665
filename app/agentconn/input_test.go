package agentconn

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHasInput: only a stdin that can hold something the command would
// read is passed on; /dev/null (what the agents give a command they made
// no terminal for) and a closed stdin are not.
func TestHasInput(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	closed, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	for _, c := range []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"/dev/null", null, false},
		{"a pipe", r, true},
		{"a file", file, true},
		{"a closed stdin", closed, false},
		{"none", nil, false},
		{"a reader", strings.NewReader("x"), true},
	} {
		if got := hasInput(c.in); got != c.want {
			t.Errorf("%s: hasInput = %v, want %v", c.name, got, c.want)
		}
	}
}
