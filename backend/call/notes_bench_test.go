package call

import (
	"bytes"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// BenchmarkOutputNotes: the notes read from a command's output, on the
// largest output a result keeps (1 MiB a stream) of ordinary test-runner
// lines, none of which needs a note.
func BenchmarkOutputNotes(b *testing.B) {
	line := []byte("=== RUN   TestSomething/with_a_subtest_name\n--- PASS: TestSomething/with_a_subtest_name (0.00s)\n")
	out := bytes.Repeat(line, sandbox.DefaultOutputBytes/len(line))
	b.SetBytes(int64(2 * len(out)))
	for b.Loop() {
		o := newCommandOutput(out, out)
		serviceNotes(o)
		directNote(sandbox.NetProxy, o)
		privilegeNote(o)
		credentialNote(o)
		socketNotes(o)
	}
}

// BenchmarkOutputNotesSmall: the same on what most commands print.
func BenchmarkOutputNotesSmall(b *testing.B) {
	out := []byte("ok  \tgithub.com/example/project/pkg\t0.012s\n")
	for b.Loop() {
		o := newCommandOutput(out, out)
		serviceNotes(o)
		directNote(sandbox.NetProxy, o)
		privilegeNote(o)
		credentialNote(o)
		socketNotes(o)
	}
}

// BenchmarkStderrNotes: the notes read from stderr alone (the boundary's
// refusals, steering files, signing), on a whole MiB of ordinary lines.
func BenchmarkStderrNotes(b *testing.B) {
	line := []byte("=== RUN   TestSomething/with_a_subtest_name\n--- PASS: TestSomething/with_a_subtest_name (0.00s)\n")
	out := bytes.Repeat(line, sandbox.DefaultOutputBytes/len(line))
	for b.Loop() {
		boundaryRefusals(out, []string{"/home/me/src/app"}, "/home/me", func(string) bool { return true })
		steeringNotes(out)
		signingNote(out)
	}
}
