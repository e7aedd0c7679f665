package audit

import (
	"bytes"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

func seedChain(t *testing.T, n int) (*Store, *sql.DB) {
	t.Helper()
	s, sqlDB, _ := newTestStore(t)
	for i := 1; i <= n; i++ {
		if _, err := s.Append(t.Context(), ev("s", "tool.call", "agent:a", fmt.Sprintf(`{"cmd":"ls","n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	return s, sqlDB
}

const dropGuards = `DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete;`

func TestTriggersRefuseEdits(t *testing.T) {
	_, sqlDB := seedChain(t, 2)
	for _, stmt := range []string{
		"UPDATE audit_events SET payload = '{}' WHERE seq = 1",
		"DELETE FROM audit_events WHERE seq = 2",
	} {
		if _, err := sqlDB.Exec(stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: err = %v, want append-only refusal", stmt, err)
		}
	}
}

// Tampering through SQL (guards dropped, as someone with the file would) is
// caught and the first bad seq named.
func TestVerifyNamesFirstTamperedRow(t *testing.T) {
	tests := []struct {
		name    string
		sql     string
		badSeq  int64
		problem Problem
	}{
		{"payload edited", `UPDATE audit_events SET payload = '{"cmd":"rm","n":4}' WHERE seq = 4`, 4, ProblemHash},
		{"payload reformatted", `UPDATE audit_events SET payload = '{"cmd": "ls","n":4}' WHERE seq = 4`, 4, ProblemPayload},
		{"kind edited", `UPDATE audit_events SET kind = 'tool.result' WHERE seq = 6`, 6, ProblemHash},
		{"time edited", `UPDATE audit_events SET time_ns = time_ns + 1 WHERE seq = 2`, 2, ProblemHash},
		{"hash rewritten", `UPDATE audit_events SET hash = zeroblob(32) WHERE seq = 5`, 5, ProblemHash},
		{"prev_hash rewritten", `UPDATE audit_events SET prev_hash = zeroblob(32) WHERE seq = 3`, 3, ProblemPrevHash},
		{"middle row deleted", `DELETE FROM audit_events WHERE seq = 4`, 4, ProblemMissing},
		{"first row deleted", `DELETE FROM audit_events WHERE seq = 1`, 1, ProblemMissing},
		{"rows deleted", `DELETE FROM audit_events WHERE seq IN (3, 4, 5)`, 3, ProblemMissing},
		{"row renumbered", `UPDATE audit_events SET seq = 100 WHERE seq = 8`, 8, ProblemMissing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, sqlDB := seedChain(t, 8)
			if _, err := sqlDB.Exec(dropGuards + tc.sql); err != nil {
				t.Fatal(err)
			}
			rep, err := s.Verify(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.BadSeq != tc.badSeq || rep.Problem != tc.problem {
				t.Fatalf("Verify = %+v, want bad seq %d (%s)", rep, tc.badSeq, tc.problem)
			}
			if rep.Checked != tc.badSeq-1 || !strings.Contains(rep.String(), fmt.Sprint(tc.badSeq)) {
				t.Fatalf("report %q: checked %d", rep, rep.Checked)
			}
		})
	}
}

func TestVerifyEmptyChain(t *testing.T) {
	s, _, _ := newTestStore(t)
	rep, err := s.Verify(t.Context())
	if err != nil || !rep.OK || rep.Checked != 0 || rep.LastHash != GenesisHash {
		t.Fatalf("Verify on empty store = %+v, %v", rep, err)
	}
}

func TestExportVerifiesOffline(t *testing.T) {
	s, _ := seedChain(t, 25)
	var buf bytes.Buffer
	st, err := s.Export(t.Context(), &buf, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 25 {
		t.Fatalf("export has %d lines, want 25", len(lines))
	}
	if !strings.HasPrefix(lines[0], `{"actor":"agent:a","call_id":"","hash":"`) {
		t.Fatalf("line 1: %s", lines[0])
	}
	rep, err := VerifyJSONL(bytes.NewReader(buf.Bytes()))
	if err != nil || !rep.OK || rep.Checked != 25 || !rep.FromGenesis {
		t.Fatalf("VerifyJSONL = %+v, %v", rep, err)
	}
	dbRep, _ := s.Verify(t.Context())
	if rep.LastHash != dbRep.LastHash {
		t.Fatalf("export last hash %s, database %s", rep.LastHash, dbRep.LastHash)
	}
	if st.Events != 25 || st.Bytes != int64(buf.Len()) || st.LastSeq != dbRep.LastSeq || st.LastHash != dbRep.LastHash {
		t.Fatalf("ExportStats = %+v, want 25 events, %d bytes, seq %d, hash %s", st, buf.Len(), dbRep.LastSeq, dbRep.LastHash)
	}

	edit := func(f func([]string) []string) string {
		cp := append([]string(nil), lines...)
		return strings.Join(f(cp), "\n") + "\n"
	}
	tests := []struct {
		name    string
		text    string
		badSeq  int64
		problem Problem
	}{
		{"payload edited", edit(func(l []string) []string {
			l[9] = strings.Replace(l[9], `"cmd":"ls"`, `"cmd":"rm"`, 1)
			return l
		}), 10, ProblemHash},
		{"line removed", edit(func(l []string) []string { return append(l[:4], l[5:]...) }), 5, ProblemMissing},
		{"lines swapped", edit(func(l []string) []string { l[2], l[3] = l[3], l[2]; return l }), 3, ProblemMissing},
		{"garbage line", edit(func(l []string) []string { l[6] = "not json"; return l }), 7, ProblemUnreadable},
		{"duplicated line", edit(func(l []string) []string {
			return append(l[:8], append([]string{l[7]}, l[8:]...)...)
		}), 8, ProblemOutOfOrder},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := VerifyJSONL(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.BadSeq != tc.badSeq || rep.Problem != tc.problem {
				t.Fatalf("VerifyJSONL = %+v, want bad seq %d (%s)", rep, tc.badSeq, tc.problem)
			}
		})
	}

	// A tail of the export verifies from its own first prev_hash.
	rep, err = VerifyJSONL(strings.NewReader(strings.Join(lines[10:], "\n")))
	if err != nil || !rep.OK || rep.FromGenesis || rep.FirstSeq != 11 || rep.Checked != 15 {
		t.Fatalf("VerifyJSONL on a tail = %+v, %v", rep, err)
	}
}

func TestExportFilterAndRoundTrip(t *testing.T) {
	s, _ := seedQueryStore(t)
	var buf bytes.Buffer
	if _, err := s.Export(t.Context(), &buf, Filter{Session: "a"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 20 {
		t.Fatalf("filtered export has %d lines", len(lines))
	}
	var e Event
	if err := e.UnmarshalJSON([]byte(lines[1])); err != nil {
		t.Fatal(err)
	}
	back, _ := e.MarshalJSON()
	if string(back) != lines[1] {
		t.Fatalf("round trip changed the record:\n%s\n%s", lines[1], back)
	}
	if e.Seq != 4 || e.Session != "a" {
		t.Fatalf("decoded %+v", e)
	}
}
