//go:build integration

package audit

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// sqliteCLI runs the sqlite3 command-line tool, the way someone with the
// file would edit it behind Gatehouse's back.
func sqliteCLI(t *testing.T, path, script string) string {
	t.Helper()
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatalf("the sqlite3 command-line tool is required for this test: install Debian's sqlite3 package (scripts/deps.sh test does): %v", err)
	}
	out, err := exec.Command(bin, path, script).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 %q: %v\n%s", script, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestTamperWithSQLiteCLI(t *testing.T) {
	tests := []struct {
		name    string
		script  func(payload string) string
		badSeq  int64
		problem Problem
	}{
		{
			name: "one byte of one payload",
			script: func(payload string) string {
				// Flip one letter inside a string value: still valid,
				// canonical JSON, so only the hash can tell.
				i := strings.Index(payload, `"ls"`) + 1
				return fmt.Sprintf(`UPDATE audit_events SET payload = substr(payload, 1, %d) || 'X' || substr(payload, %d) WHERE seq = 5;`, i, i+2)
			},
			badSeq: 5, problem: ProblemHash,
		},
		{
			name:   "one row deleted",
			script: func(string) string { return `DELETE FROM audit_events WHERE seq = 7;` },
			badSeq: 7, problem: ProblemMissing,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			s, sqlDB, path := newTestStore(t)
			for i := 1; i <= 10; i++ {
				if _, err := s.Append(ctx, ev("s", "tool.call", "agent:a", fmt.Sprintf(`{"cmd":"ls","n":%d}`, i))); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			sqlDB.Close()

			payload := sqliteCLI(t, path, "SELECT payload FROM audit_events WHERE seq = 5;")
			// The guard triggers stop casual edits; someone with the file drops them.
			sqliteCLI(t, path, "DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete; "+tc.script(payload))
			if tc.problem == ProblemHash {
				if got := sqliteCLI(t, path, "SELECT payload FROM audit_events WHERE seq = 5;"); len(got) != len(payload) || got == payload {
					t.Fatalf("edit did not change exactly one byte: %q -> %q", payload, got)
				}
			}

			s, err := Open(ctx, openTestDB(t, path), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			rep, err := s.Verify(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.BadSeq != tc.badSeq || rep.Problem != tc.problem {
				t.Fatalf("Verify = %+v, want bad seq %d (%s)", rep, tc.badSeq, tc.problem)
			}
		})
	}
}
