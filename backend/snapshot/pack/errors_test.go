package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestClassifyIO(t *testing.T) {
	if ClassifyIO("op", nil) != nil {
		t.Fatal("nil error classified as an error")
	}
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT} {
		err := ClassifyIO("write snapshot pack", &fs.PathError{Op: "write", Path: "p", Err: errno})
		var ns *NoSpaceError
		if !errors.Is(err, ErrNoSpace) || !errors.As(err, &ns) || ns.Op != "write snapshot pack" || !errors.Is(err, errno) {
			t.Fatalf("%v: got %v, want a NoSpaceError that still wraps the errno", errno, err)
		}
	}
	other := fmt.Errorf("boom: %w", syscall.EIO)
	err := ClassifyIO("read snapshot index", other)
	if errors.Is(err, ErrNoSpace) || !errors.Is(err, syscall.EIO) || err.Error() != "read snapshot index: boom: input/output error" {
		t.Fatalf("other error: %v", err)
	}
}
