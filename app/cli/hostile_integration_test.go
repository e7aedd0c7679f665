//go:build integration

package cli_test

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// hostileName retitles the terminal (OSC 0 … BEL), clears it (CSI 2 J) and
// reverses what follows (U+202E), if a terminal ever receives it raw.
const hostileName = "evil\x1b]0;pwned\x07\x1b[2J\u202egnp.exe"

// rawControls are what must never reach the terminal from agent text.
var rawControls = []string{"\x1b", "\x07", "\u202e", "\u0085"}

// A client name, a question, a file name and file contents full of escape
// sequences and a bidi override are shown escaped by every CLI command that
// shows them, in text and in JSON, on stdout and stderr alike.
func TestHostileTextIsShownEscaped(t *testing.T) {
	d := clitest.Start(t)
	// A small compressed file, as git keeps objects: no NUL byte, not text.
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("blob 12\x00hello world\n"))
	zw.Close()
	blob := bytes.ReplaceAll(z.Bytes(), []byte{0}, []byte{1})
	if err := os.WriteFile(filepath.Join(d.Workspace, "object.bin"), blob, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := t.Context()
	s := d.MCP(ctx, hostileName)
	hostileFile := "\u202etxt.exe"
	if r := callApproving(t, d, s, "write_file", map[string]any{"path": "object.bin", "content": "now text\n"}); r.IsError {
		t.Fatalf("write object.bin: %s", clitest.Text(t, r))
	}
	if r := callApproving(t, d, s, "write_file", map[string]any{"path": hostileFile, "content": "line \x1b[2J\x1b]0;owned\x07 \u202edone\n"}); r.IsError {
		t.Fatalf("write hostile file: %s", clitest.Text(t, r))
	}
	// A question waits on the person, so `approvals` has a row.
	asked := make(chan outcome, 1)
	go func() {
		asked <- callAsync(t.Context(), s, "ask_human", map[string]any{"question": "Run \x1b[2Jthis?\u202e"})
	}()
	d.WaitApproval(clitest.CardWait) // the question card
	sess := activeSession(t, d)

	runs := []struct {
		args []string
		want string // an escaped form the output must show
	}{
		{[]string{"approvals"}, `evil\x1b]0;pwned\x07\x1b[2J\u202egnp.exe`},
		{[]string{"approvals", "--json"}, `\u202e`},
		{[]string{"sessions"}, `evil\x1b]0;pwned\x07\x1b[2J\u202egnp.exe`},
		{[]string{"sessions", "--json"}, `evil\u001b]0;pwned\u0007\u001b[2J\u202egnp.exe`},
		{[]string{"sessions", sess}, `\u202etxt.exe`},
		{[]string{"sessions", sess, "--json"}, `\u202e`},
		{[]string{"log", "-n", "200"}, `evil\u001b]0;pwned\u0007`},
		{[]string{"log", "-n", "200", "--json"}, `evil\u001b]0;pwned\u0007`},
		{[]string{"checkpoints", sess}, "pre"},
		{[]string{"rollback", sess, "--dry-run"}, `\x1b[2J`},
		{[]string{"rollback", sess, "--dry-run", "--json"}, `\u202e`},
	}
	for _, r := range runs {
		out, stderr, code := d.CLI(t.Context(), r.args...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s%s", r.args, code, out, stderr)
			continue
		}
		for _, raw := range rawControls {
			if strings.Contains(out, raw) || strings.Contains(stderr, raw) {
				t.Errorf("%v printed a raw %q:\n%s%s", r.args, raw, out, stderr)
			}
		}
		if !strings.Contains(out, r.want) {
			t.Errorf("%v does not show %q:\n%s", r.args, r.want, out)
		}
	}
	// Times carry their zone.
	zone := time.Now().Format("MST")
	for _, args := range [][]string{{"sessions"}, {"sessions", sess}, {"log", "-n", "1"}, {"checkpoints", sess}} {
		if out, _, _ := d.CLI(t.Context(), args...); !strings.Contains(out, " "+zone) {
			t.Errorf("%v prints times without their zone (%s):\n%s", args, zone, out)
		}
	}
	// The binary file reads as such, with its size, never as a text diff.
	out, _, _ := d.CLI(t.Context(), "rollback", sess, "--dry-run")
	if want := "object.bin: binary,"; !strings.Contains(out, want) || strings.Contains(out, "+++ b/object.bin") {
		t.Errorf("rollback --dry-run does not show object.bin as binary:\n%s", out)
	}
	for _, a := range d.Pending() {
		d.Decide(a.ID, "deny", "once", "")
	}
	<-asked
}
