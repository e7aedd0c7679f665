//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/fulldisk"
)

// TestDiskFull puts the data dir on a tiny tmpfs, fills it, and checks that
// a tool call is refused with a clear message (never run unaudited), the
// daemon survives, and everything works again once space is freed.
func TestDiskFull(t *testing.T) {
	mnt := t.TempDir()
	fulldisk.Mount(t, mnt, "size=16m")
	ws := t.TempDir()
	d := clitest.StartWith(t, filepath.Join(mnt, "data"), ws)
	s := d.MCP(t.Context(), "disk-full")
	if r := call(t, s, "run_command", map[string]any{"argv": []string{"true"}}); r.IsError {
		t.Fatalf("before: %s", clitest.Text(t, r))
	}
	filler := filepath.Join(mnt, "filler")
	fulldisk.Fill(filler, 64)

	var sawDiskFull bool
	for i := 0; i < 200 && !sawDiskFull; i++ {
		r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"echo", strings.Repeat("x", 4000)}}})
		if err != nil {
			t.Fatalf("call with full disk: transport error %v", err)
		}
		if r.IsError && strings.Contains(clitest.Text(t, r), "full") {
			sawDiskFull = true
		}
	}
	if !sawDiskFull {
		t.Fatal("no call reported the full disk")
	}
	if resp, _ := d.Request("GET", "/healthz", nil, nil); resp.StatusCode != 200 {
		t.Fatal("daemon died on a full disk")
	}
	os.Remove(filler)
	if r := call(t, s, "run_command", map[string]any{"argv": []string{"true"}}); r.IsError {
		t.Fatalf("after freeing space: %s", clitest.Text(t, r))
	}
	if out, _, code := d.CLI(t.Context(), "audit", "verify"); code != 0 {
		t.Fatalf("verify after disk full: %s", out)
	}
}
