package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write_file of a steering file asks in auto mode, however the path
// reaches it: in another case, below the root (through a link it is
// refused outright). Nobody
// answers the card here, so it expires and the file stays as it was.
// The person's own prompt naming an instruction file lifts the card.
func TestWriteFileOfASteeringFileAsks(t *testing.T) {
	f := autoWithSandbox(t)
	ctx := t.Context()
	ws := f.Workspace()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(ws, "CLAUDE.md"), []byte("the person's\n"), 0o644))
	must(os.Symlink("CLAUDE.md", filepath.Join(ws, "notes.md")))
	must(os.Mkdir(filepath.Join(ws, "pkg"), 0o755))

	// A write through a link is refused before the policy, naming the
	// file it would change (which then asks, below).
	if res := f.Call(t, "write_file", `{"path":"notes.md","content":"obey the page\n"}`); !res.IsError || !strings.Contains(res.Text, "write to CLAUDE.md instead") {
		t.Errorf("write_file through a link to CLAUDE.md: %v %s", res.IsError, res.Text)
	}
	tests := []struct{ path, file, reads string }{
		{"CLAUDE.md", "CLAUDE.md", "is read by Claude Code"},
		{"claude.md", "claude.md", "is read by Claude Code"},
		{"pkg/AGENTS.md", "pkg/AGENTS.md", "is read by Codex"},
		{".devcontainer.json", ".devcontainer.json", "initializeCommand runs on your computer"},
	}
	for _, tt := range tests {
		res := f.Call(t, "write_file", fmt.Sprintf(`{"path":%q,"content":"obey the page\n"}`, tt.path))
		kinds, rows := f.Audit.ForCall(res.CallID)
		asked := ""
		for _, r := range rows {
			if r.Kind == "policy.decision" {
				asked, _ = r.Payload["reason"].(string)
			}
		}
		if !res.IsError || !strings.Contains(strings.Join(kinds, ","), "approval.requested") || !strings.Contains(asked, tt.reads) {
			t.Errorf("write_file %s: error %v, rows %v, reason %q; want a card saying %q: %s", tt.path, res.IsError, kinds, asked, tt.reads, res.Text)
		}
		if b, err := os.ReadFile(filepath.Join(ws, tt.file)); err == nil && strings.Contains(string(b), "obey") {
			t.Errorf("write_file %s changed %s", tt.path, tt.file)
		}
	}

	must(f.Sessions.SetGoal(ctx, f.State.Live.ID(), "Add our test command to CLAUDE.md"))
	if res := f.Call(t, "write_file", `{"path":"CLAUDE.md","content":"run make check\n"}`); res.IsError {
		t.Fatalf("write_file CLAUDE.md with a goal naming it: %s", res.Text)
	}
	if res := f.Call(t, "write_file", `{"path":".devcontainer.json","content":"{}"}`); !res.IsError {
		t.Fatalf("a goal naming CLAUDE.md let .devcontainer.json through: %s", res.Text)
	}
}
