package hookserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// TestFrameStreamKeepsCharactersWhole: output cut inside a UTF-8 sequence
// goes on when the sequence is whole, so no character reaches the agent
// as two replacement marks; each stream keeps its own frames.
func TestFrameStreamKeepsCharactersWhole(t *testing.T) {
	rec := httptest.NewRecorder()
	f := newFrames(rec)
	out, errOut := &frameStream{f: f}, &frameStream{f: f, stderr: true}
	word := []byte("naïve ✓\n")
	for i := range word {
		out.Write(word[i : i+1])
	}
	errOut.Write([]byte("warn \xe2\x9c"))
	errOut.Write([]byte("\x93"))
	errOut.Write([]byte{0xe2}) // cut short at the end: sent as it is
	if err := errors.Join(errOut.flush(), f.result(hookwire.ExecResult{ExitCode: 3})); err != nil {
		t.Fatal(err)
	}
	if ct := rec.Header().Get("Content-Type"); ct != hookwire.StreamType {
		t.Errorf("content type %q", ct)
	}
	var stdout, stderr strings.Builder
	var frames int
	var res *hookwire.ExecResult
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		var fr hookwire.ExecFrame
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			t.Fatal(err)
		}
		frames++
		stdout.WriteString(fr.Stdout)
		stderr.WriteString(fr.Stderr)
		res = fr.Result
	}
	if stdout.String() != "naïve ✓\n" || stderr.String() != "warn ✓\ufffd" {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
	// The result comes last.
	if res == nil || res.ExitCode != 3 {
		t.Errorf("last of %d frames: result %+v", frames, res)
	}
}

// TestFramesLeaveOutWhatTheReaderCannotTake: output queued past the
// bound for a reader that is not reading is left out, and the stream
// says how much, before what follows.
func TestFramesLeaveOutWhatTheReaderCannotTake(t *testing.T) {
	defer func(n int) { maxQueued = n }(maxQueued)
	maxQueued = 8
	rec := httptest.NewRecorder()
	f := newFrames(rec)
	out := &frameStream{f: f}
	out.Write([]byte("0123456789abcdef"))
	if err := f.result(hookwire.ExecResult{}); err != nil {
		t.Fatal(err)
	}
	out.Write([]byte("late"))
	var stdout, stderr strings.Builder
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		var fr hookwire.ExecFrame
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			t.Fatal(err)
		}
		stdout.WriteString(fr.Stdout)
		stderr.WriteString(fr.Stderr)
	}
	if stdout.String() != "" || !strings.Contains(stderr.String(), "16 bytes of output left out") {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
}
