package cli

import (
	"bytes"
	"errors"
	"testing"
)

// TestReportErrorDetailOnce: with GATEHOUSE_DEBUG set, a user error
// prints its cause as a detail only when the cause says more than the
// sentence (the daemon's sentence comes back as both).
func TestReportErrorDetailOnce(t *testing.T) {
	t.Setenv("GATEHOUSE_DEBUG", "1")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"daemon's sentence", userErrorf(errors.New("no such session"), "%s", "no such session"), "gatehouse: no such session\n"},
		{"a cause with more", userErrorf(errors.New("dial unix: connection refused"), "the daemon is not running"), "gatehouse: the daemon is not running\n  detail: dial unix: connection refused\n"},
		{"no cause", &UserError{Msg: "say it once"}, "gatehouse: say it once\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if code := reportError(&b, tc.err); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if b.String() != tc.want {
				t.Errorf("printed %q, want %q", b.String(), tc.want)
			}
		})
	}
}
