package call

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// TestEncodedLine: a line that may be a private key's body is never
// sampled; ordinary lines are.
func TestEncodedLine(t *testing.T) {
	for line, want := range map[string]bool{
		"MIIEowIBAAKCAQEA1b2c3d4e5f6Zm9vYmFyYmF6cXV4MIIEowIBAAKCAQEA1b2c3d4e5f6":   true,
		"  b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gt\n": true,
		"ok  	github.com/x/y	0.12s":    false,
		"short+base64==":               false,
		"=== RUN   TestSomething/case": false,
	} {
		if got := encodedLine([]byte(line)); got != want {
			t.Errorf("encodedLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestLiveOutput: a stream within the capture's limit passes whole; a
// longer one passes whole up to the limit and the end of the line it
// cuts, then a line every sampleEvery while it runs, then its end as the
// capture kept it, without repeating what already went.
func TestLiveOutput(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("line %02d", i)) // 7 bytes and a newline
	}
	all := strings.Join(lines, "\n") + "\n"
	// One line a second: past the limit, every other one goes.
	var sampled []string
	for i := 10; i < 40; i += 2 {
		sampled = append(sampled, lines[i]+"\n")
	}
	for _, c := range []struct {
		name  string
		limit int64
		want  string
	}{
		{"within the limit", 1 << 10, all},
		{"past the limit", 64, all[:64] +
			"[gatehouse: the output passed 64 bytes; until the command ends, a line of it every 2s]\n" +
			strings.Join(sampled, "") +
			"\n[gatehouse: 320 bytes in all; the last 16 follow]\nline 38\nline 39\n"},
		// The limit cuts line 37, which goes whole before the marker.
		{"its end overlapping what went", 300, all[:304] +
			"[gatehouse: the output passed 300 bytes; until the command ends, a line of it every 2s]\n" +
			"\n[gatehouse: 320 bytes in all; the last 16 follow]\n" + all[304:]},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			clock := time.Unix(0, 0)
			l := &liveOutput{red: nopCloser{&out}, limit: c.limit, now: func() time.Time { return clock }}
			capture := sandbox.NewCapture(c.limit, l)
			for _, line := range lines {
				capture.Write([]byte(line + "\n"))
				clock = clock.Add(time.Second)
			}
			if err := l.finish(capture.Bytes(), capture.Truncated()); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.want {
				t.Errorf("got\n%q\nwant\n%q", out.String(), c.want)
			}
		})
	}
}

// A line longer than maxLine past the limit goes up to maxLine, and the
// marker starts a line of its own.
func TestLiveOutputLongLine(t *testing.T) {
	var out bytes.Buffer
	l := &liveOutput{red: nopCloser{&out}, limit: 8, now: time.Now}
	long := strings.Repeat("x", 5000)
	l.Write([]byte(long + "\nnext\n"))
	want := long[:8+maxLine] + "\n[gatehouse: the output passed 8 bytes; until the command ends, a line of it every 2s]\n"
	if out.String() != want {
		t.Errorf("got %d bytes ending %q", out.Len(), out.String()[max(0, out.Len()-100):])
	}
}
