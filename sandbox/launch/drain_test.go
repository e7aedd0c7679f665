package launch

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Once a run is over its output is taken from the pipe without waiting for
// EOF, which a sandbox's own processes may delay: every byte written before
// still arrives.
func TestCopyOutputTakesWhatIsBufferedAtTheDeadline(t *testing.T) {
	for _, size := range []int{0, 1, 4096, 65536, 300000} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		got := sandbox.NewCapture(1<<20, nil)
		done := make(chan struct{})
		go func() { copyOutput(got, r); close(done) }()
		want := bytes.Repeat([]byte("x"), size)
		if _, err := w.Write(want); err != nil {
			t.Fatal(err)
		}
		// The writer keeps the pipe open, as bwrap's init would.
		if err := r.SetReadDeadline(time.Now()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d bytes: copy did not stop at the deadline", size)
		}
		if n := len(got.Bytes()); n != size || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%d bytes written, %d copied", size, n)
		}
		w.Close()
		r.Close()
	}
}
