package tools

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// TestCommandOutputDecodes: what run_command encodes, notes included, is
// what a transport decodes with call.CommandResultOf, field by field; the
// streams are redacted before they are cut.
func TestCommandOutputDecodes(t *testing.T) {
	upper := strings.ToUpper
	tests := []struct {
		name  string
		res   sandbox.Result
		notes []string
		want  call.CommandResult
	}{
		{
			name:  "ran",
			res:   sandbox.Result{ExitCode: 3, Stdout: []byte("out\n"), Stderr: []byte("err\n"), Duration: 1500 * time.Millisecond},
			notes: []string{"a note"},
			want: call.CommandResult{ExitCode: 3, Stdout: "OUT\n", Stderr: "ERR\n", StdoutBytes: 4, StderrBytes: 4, DurationMS: 1500,
				Notes: []string{"a note"}},
		},
		{
			name: "killed",
			res:  sandbox.Result{ExitCode: -1, Signal: "SIGKILL", Killed: true, KillReason: "timeout"},
			want: call.CommandResult{ExitCode: -1, Signal: "SIGKILL", Killed: true, KillReason: "timeout"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := withNotes(commandOutput(tt.res, "", upper), tt.notes)
			got, err := call.CommandResultOf(call.Result{Structured: out.Structured})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("decoded %+v\nwant    %+v", got, tt.want)
			}
			for _, n := range tt.notes {
				if !strings.Contains(out.Text, "gatehouse: "+n) {
					t.Errorf("text %q lacks the note %q", out.Text, n)
				}
			}
		})
	}
}

// TestHeadTailKeepsBothEnds: a long stream keeps its head and tail, cut on
// UTF-8 boundaries, and says how much it left out.
func TestHeadTailKeepsBothEnds(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		cut  bool
	}{
		{"short", "hello", 10, false},
		{"exact", "0123456789", 10, false},
		{"long", strings.Repeat("a", 50) + "MIDDLE" + strings.Repeat("z", 50), 20, true},
		{"multibyte", strings.Repeat("é", 40), 11, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := headTail(tt.in, tt.n, int64(len(tt.in)))
			if cut != tt.cut {
				t.Fatalf("cut = %v, want %v", cut, tt.cut)
			}
			if !cut {
				if got != tt.in {
					t.Fatalf("got %q, want it whole", got)
				}
				return
			}
			if !strings.Contains(got, "bytes left out here") || strings.Contains(got, "MIDDLE") || !strings.HasPrefix(got, tt.in[:2]) || !strings.HasSuffix(got, tt.in[len(tt.in)-2:]) {
				t.Fatalf("got %q", got)
			}
			if !strings.Contains(got, "\n") || strings.ContainsRune(got, '\uFFFD') {
				t.Fatalf("cut off a UTF-8 boundary: %q", got)
			}
		})
	}
}

// TestCutOutputSaysHowMuch: a stream the sandbox already cut (its head,
// its marker, its tail) and run_command cuts again tells the model how
// much of what the command wrote it does not see, and the structured
// part counts every byte written.
func TestCutOutputSaysHowMuch(t *testing.T) {
	const written = 50_000_000
	half := strings.Repeat("y\n", 256<<10)
	captured := half + sandbox.TruncationMarker(written-2*int64(len(half))) + half
	out := commandOutput(sandbox.Result{Stdout: []byte(captured), StdoutTruncated: true, StdoutBytes: written}, "", func(s string) string { return s })
	got, err := call.CommandResultOf(call.Result{Structured: out.Structured})
	if err != nil {
		t.Fatal(err)
	}
	if got.StdoutBytes != written || !got.StdoutTruncated {
		t.Errorf("stdout_bytes %d truncated %v, want %d and true", got.StdoutBytes, got.StdoutTruncated, written)
	}
	var left int
	i := strings.Index(got.Stdout, "[gatehouse: ")
	if i < 0 {
		t.Fatalf("no count of what was left out in %d bytes of stdout", len(got.Stdout))
	}
	if _, err := fmt.Sscanf(got.Stdout[i:], "[gatehouse: %d bytes left out here]", &left); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("\n[gatehouse: %d bytes left out here]\n", left)
	if shown := len(got.Stdout) - len(marker); left+shown != written {
		t.Errorf("the model sees %d bytes and is told %d were left out: %d, want the %d written", shown, left, left+shown, written)
	}
}
