package sentence

import (
	"errors"
	"io/fs"
	"testing"
)

func TestSentenceKeepsItsCause(t *testing.T) {
	err := New("the project does not exist", fs.ErrNotExist)
	if err.Error() != "the project does not exist" || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%q, is ErrNotExist %v", err, errors.Is(err, fs.ErrNotExist))
	}
}
