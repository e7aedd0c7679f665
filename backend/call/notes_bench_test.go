package call

import (
	"bytes"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
)

// readAllNotes runs every note command.go reads from a command's output.
func readAllNotes(stderr, stdout []byte) {
	out := newCommandOutput(stderr, stdout)
	steeringNotes(out)
	outputNotes(sandbox.NetProxy, out)
	signingNote(stderr)
	landlockEntryNotes(out, "/home/me/src/app", []string{"/home/me/src/app"}, func(string) map[string]landlock.Lock { return nil })
	boundaryRefusals(out, "/home/me/src/app", []string{"/home/me/src/app"}, "/home/me", func(string) bool { return true })
}

// BenchmarkCommandNotes: the notes read from a command's output, on the
// largest output a result keeps (1 MiB a stream) of ordinary test-runner
// lines, none of which needs a note.
func BenchmarkCommandNotes(b *testing.B) {
	line := []byte("=== RUN   TestSomething/with_a_subtest_name\n--- PASS: TestSomething/with_a_subtest_name (0.00s)\n")
	out := bytes.Repeat(line, sandbox.DefaultOutputBytes/len(line))
	b.SetBytes(int64(2 * len(out)))
	for b.Loop() {
		readAllNotes(out, out)
	}
}

// BenchmarkCommandNotesSmall: the same on what most commands print.
func BenchmarkCommandNotesSmall(b *testing.B) {
	out := []byte("ok  \tgithub.com/example/project/pkg\t0.012s\n")
	for b.Loop() {
		readAllNotes(out, out)
	}
}
