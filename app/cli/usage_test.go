package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestCommandLineErrorsSayHowToUse: a command line cobra cannot take (an
// unknown command or flag, an argument missing) says what to type, in one
// line; nothing runs.
func TestCommandLineErrorsSayHowToUse(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "--bogus"}, "gatehouse: unknown flag: --bogus; usage: gatehouse sessions [ID] [flags] (more in `gatehouse sessions --help`)"},
		{[]string{"frobnicate"}, "gatehouse: unknown command \"frobnicate\" for \"gatehouse\"; `gatehouse --help` lists the commands"},
		{[]string{"exec"}, "gatehouse: accepts 1 arg(s), received 0; usage: gatehouse exec [--agent A] --ticket T -- COMMAND [flags] (more in `gatehouse exec --help`)"},
		{[]string{"exec", "--", "ls"}, "gatehouse: gatehouse exec runs only a command an agent's hook has cleared (the hook gives it a --ticket); to run a command confined yourself, use: gatehouse run -- COMMAND"},
		{[]string{"run"}, "gatehouse: name what to run: gatehouse run claude (or codex, gemini) for an agent with its profile, or gatehouse run -- COMMAND for any command"},
		{[]string{"--log-level", "loud", "sessions"}, `gatehouse: --log-level must be one of debug, info, warn, error, not "loud"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := execute(t.Context(), &Globals{Stdout: &out, Stderr: &errb}, tt.args)
			if code != 1 || strings.TrimSpace(errb.String()) != tt.want || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q\nstderr %q\nwant   %q", code, out.String(), strings.TrimSpace(errb.String()), tt.want)
			}
		})
	}
}
