//go:build integration

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

var lastHash = regexp.MustCompile(`last hash ([0-9a-f]{64})`)

// `audit export -o` says what it wrote; `audit verify --file` warns that a
// cut-short export still verifies and prints the last hash, which `audit
// verify` prints for the live database.
func TestAuditExportAndVerifySayWhatToCompare(t *testing.T) {
	d := clitest.Start(t)
	d.CLI(t.Context(), "pause", "--reason", "one")
	d.CLI(t.Context(), "resume", "--reason", "two")
	file := filepath.Join(t.TempDir(), "audit.jsonl")
	_, stderr, code := d.CLI(t.Context(), "audit", "export", "-o", file)
	st, err := os.Stat(file)
	if code != 0 || err != nil {
		t.Fatalf("export: exit %d, %v: %s", code, err, stderr)
	}
	lines := strings.Count(mustRead(t, file), "\n")
	wrote := fmt.Sprintf("Wrote %s: %d events, %d bytes, up to seq %d, last hash ", file, lines, st.Size(), lines)
	if !strings.Contains(stderr, wrote) || !strings.Contains(stderr, "gatehouse audit verify --file "+file) {
		t.Fatalf("export said %q, want it to contain %q", stderr, wrote)
	}
	exported := lastHash.FindStringSubmatch(stderr)

	live, _, code := d.CLI(t.Context(), "audit", "verify")
	if code != 0 || !strings.Contains(live, "Last hash ") {
		t.Fatalf("audit verify: exit %d: %s", code, live)
	}
	offline, _, code := d.CLI(t.Context(), "audit", "verify", "--file", file)
	if code != 0 || !strings.Contains(offline, "An export cut short still verifies") {
		t.Fatalf("audit verify --file: exit %d: %s", code, offline)
	}
	liveHash, fileHash := lastHash.FindStringSubmatch(live), lastHash.FindStringSubmatch(offline)
	if exported == nil || liveHash == nil || fileHash == nil || exported[1] != fileHash[1] || liveHash[1] != fileHash[1] {
		t.Fatalf("last hashes differ or are missing: export %v, live %v, file %v", exported, liveHash, fileHash)
	}

	// Cut the export short: it still verifies, and its last hash is not
	// the live one, which is what the reminder tells a person to check.
	b := mustRead(t, file)
	cut := b[:strings.LastIndex(strings.TrimSuffix(b, "\n"), "\n")+1]
	os.WriteFile(file, []byte(cut), 0o600)
	offline, _, code = d.CLI(t.Context(), "audit", "verify", "--file", file)
	fileHash = lastHash.FindStringSubmatch(offline)
	if code != 0 || fileHash == nil || fileHash[1] == liveHash[1] || !strings.Contains(offline, "cut short") {
		t.Fatalf("a cut export: exit %d, %s", code, offline)
	}
}
