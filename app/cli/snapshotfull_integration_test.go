//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/fulldisk"
)

// TestSnapshotDiskFull: with the checkpoint store's disk full, reads still
// run, a change that cannot be checkpointed is refused with a sentence
// that names the fix, a write whose after-checkpoint failed says so in its
// result, and the status the UI polls carries the problem for a banner.
func TestSnapshotDiskFull(t *testing.T) {
	base := t.TempDir()
	data, ws := filepath.Join(base, "data"), filepath.Join(base, "ws")
	snaps := filepath.Join(data, "snapshots")
	os.MkdirAll(snaps, 0o700)
	os.MkdirAll(ws, 0o755)
	fulldisk.Mount(t, snaps, "size=8m")
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	d := clitest.StartWith(t, data, ws, "--mode", "accept-edits")
	s := d.MCP(t.Context(), "disk-full")
	if r := call(t, s, "write_file", map[string]any{"path": "b.txt", "content": "one"}); r.IsError {
		t.Fatalf("before: %s", clitest.Text(t, r))
	}
	// Fill the store's disk, then make the workspace hold something new
	// that a checkpoint would have to store.
	fulldisk.Fill(filepath.Join(snaps, "filler"), 16)
	big := make([]byte, 2<<20)
	for i := range big {
		big[i] = byte(i*7 + i/251)
	}
	os.WriteFile(filepath.Join(ws, "big.bin"), big, 0o644)

	if r := call(t, s, "read_file", map[string]any{"path": "a.txt"}); r.IsError {
		t.Fatalf("read_file with the disk full: %s", clitest.Text(t, r))
	}
	if r := call(t, s, "run_command", map[string]any{"argv": []string{"cat", "a.txt"}}); r.IsError || !strings.Contains(clitest.Text(t, r), "hello") {
		t.Fatalf("a read-only command with the disk full: %s", clitest.Text(t, r))
	}
	// A staged command's checkpoint holds the paths it changed: changing
	// big.bin, which the store lacks, cannot be checkpointed, so the
	// change is not applied.
	r := callApproving(t, d, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo x >> big.bin"}})
	if !r.IsError || !strings.Contains(clitest.Text(t, r), "budget_mib") {
		t.Fatalf("a change with the disk full: %s", clitest.Text(t, r))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "big.bin")); len(b) != len(big) {
		t.Fatalf("big.bin changed although its checkpoint failed (%d bytes)", len(b))
	}
	// A write whose before-checkpoint holds nothing new runs, and its
	// result says the checkpoint after it failed.
	var fresh strings.Builder
	for i := 0; i < 60000; i++ {
		fresh.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+i%7))
	}
	r = call(t, s, "write_file", map[string]any{"path": "b.txt", "content": fresh.String()})
	if r.IsError || !strings.Contains(clitest.Text(t, r), "checkpoint after this call failed") || r.StructuredContent.(map[string]any)["warning"] == nil {
		t.Fatalf("a write whose after-checkpoint failed: %v %s", r.IsError, clitest.Text(t, r))
	}
	_, body := d.Request("GET", "/api/v1/status", nil, d.Control())
	if !strings.Contains(body, `"ok":false`) || !strings.Contains(body, "full") {
		t.Fatalf("status: %s", body)
	}
}
