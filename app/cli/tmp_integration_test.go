//go:build integration

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestTmpLastsTheSession: what one command of a session leaves in its
// temporary directory (/tmp; TMPDIR under Landlock, which keeps /tmp
// from commands) the session's next command finds, as an agent expects
// when it saves output there and reads it back; another session's
// commands do not see it, and it is gone once the session ends. On each
// backend.
func TestTmpLastsTheSession(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			run := func(s *mcp.ClientSession, script string) (string, string) {
				t.Helper()
				res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", script}}})
				if err != nil {
					t.Fatal(err)
				}
				m, _ := res.StructuredContent.(map[string]any)
				out, _ := m["stdout"].(string)
				errOut, _ := m["stderr"].(string)
				return out, errOut
			}
			one := d.MCP(t.Context(), "tmp-one")
			if out, errOut := run(one, `echo kept-for-the-session > "${TMPDIR:-/tmp}/note" && echo saved`); !strings.Contains(out, "saved") {
				t.Fatalf("the first command could not write its temporary directory: %q %q", out, errOut)
			}
			if out, errOut := run(one, `cat "${TMPDIR:-/tmp}/note"`); !strings.Contains(out, "kept-for-the-session") {
				t.Errorf("the session's next command did not find it: %q %q", out, errOut)
			}
			if backend != "landlock" {
				if out, errOut := run(one, `cat /tmp/note`); !strings.Contains(out, "kept-for-the-session") {
					t.Errorf("the next command did not find it at /tmp: %q %q", out, errOut)
				}
			}
			// Where it lies on the host: the first session's directory.
			entries, err := os.ReadDir(filepath.Join(d.Data, "tmp"))
			if err != nil || len(entries) != 1 {
				t.Fatalf("the sessions' temporary directories: %v %v", entries, err)
			}
			hostPath := filepath.Join(d.Data, "tmp", entries[0].Name(), "note")
			other := d.MCP(t.Context(), "tmp-other")
			if out, _ := run(other, fmt.Sprintf(`cat "${TMPDIR:-/tmp}/note" /tmp/note %q 2>&1`, hostPath)); strings.Contains(out, "kept-for-the-session") {
				t.Errorf("another session's command read it: %q", out)
			}
			one.Close()
			other.Close()
			tmp := filepath.Join(d.Data, "tmp")
			clitest.WaitFor(t, 30*time.Second, "the sessions' temporary directories removed", func() bool {
				entries, err := os.ReadDir(tmp)
				return err == nil && len(entries) == 0 || os.IsNotExist(err)
			})
		})
	}
}

// TestRunSharesItsTmpWithItsCommands: a confined agent saves a file in
// its /tmp (a script its Write tool made, say) and its commands, each in
// a sandbox of its own, find it there, and it finds what they leave: a
// shell command its hook cleared (on bubblewrap and Landlock: the
// container's test image has no bash to run one) and a run_command
// through Gatehouse's MCP server; on each backend.
func TestRunSharesItsTmpWithItsCommands(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			// The agent's Bash call goes through its hook, which clears
			// it and hands back the line that runs it in a sandbox of
			// its own (gatehouse exec with a ticket), as Claude Code's
			// does; its MCP call goes through the stdio bridge.
			script := `echo saved-by-the-agent > "${TMPDIR:-/tmp}/from-agent"
if [ "$2" = hook ]; then
  call='{"session_id":"tmp-run","transcript_path":"/dev/null","cwd":"'"$PWD"'","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat ${TMPDIR:-/tmp}/from-agent; echo made-by-the-shell | tee ${TMPDIR:-/tmp}/from-shell"},"tool_use_id":"toolu_1"}'
  # The command's JSON string, unescaped as far as the line needs.
  line=$(printf '%s' "$call" | "$1" hook claude | sed -n 's/.*"command":"\(\([^"\\]\|\\.\)*\)".*/\1/p' |
    sed 's/\\u003c/</g; s/\\u003e/>/g; s/\\u0026/\&/g; s/\\"/"/g; s/\\\\/\\/g')
  [ -n "$line" ] || { echo "the hook gave no command" >&2; exit 3; }
  sh -c "$line"
  echo "agent: $(cat "${TMPDIR:-/tmp}/from-shell")"
fi
{ echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tmp-test","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_command","arguments":{"argv":["sh","-c","cat ${TMPDIR:-/tmp}/from-agent; echo made-by-mcp | tee ${TMPDIR:-/tmp}/from-mcp"]}}}'
  i=0; while [ ! -s "${TMPDIR:-/tmp}/from-mcp" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; sleep 0.2
} | "$1" mcp
echo
echo "agent: $(cat "${TMPDIR:-/tmp}/from-mcp")"`
			route := "hook"
			if backend == "container" {
				route = "mcp"
			}
			out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script, "sh", d.Bin, route)
			// Each command printed the agent's file, then its own (in the
			// MCP answer's JSON, a \n); the agent read each command's.
			want := []string{`saved-by-the-agent\nmade-by-mcp`, "agent: made-by-mcp"}
			if route == "hook" {
				want = append(want, "saved-by-the-agent\nmade-by-the-shell", "agent: made-by-the-shell")
			}
			for _, w := range want {
				if code != 0 || !strings.Contains(out, w) {
					t.Errorf("want %q: exit %d, stdout %q, stderr %q", w, code, out, errOut)
				}
			}
		})
	}
}
