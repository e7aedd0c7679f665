package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/proof"
)

func TestDoctorFailedOnlyForSelected(t *testing.T) {
	rows := []proof.Row{
		{Backend: "bwrap", Check: proof.CheckHomeCanary, Outcome: proof.Pass},
		{Backend: "landlock", Check: proof.CheckHomeCanary, Outcome: proof.Fail},
		{Backend: "container", Check: "-", Outcome: proof.Unavailable},
	}
	tests := []struct {
		selected string
		want     bool
	}{{"bwrap", false}, {"landlock", true}, {"container", false}}
	for _, tc := range tests {
		if got := doctorFailed(rows, tc.selected); got != tc.want {
			t.Errorf("doctorFailed(%s) = %v, want %v", tc.selected, got, tc.want)
		}
	}
	var buf bytes.Buffer
	printDoctorTable(&buf, rows, "bwrap")
	out := buf.String()
	for _, want := range []string{"BACKEND", "bwrap *", "landlock", "FAIL", "UNAVAILABLE"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
