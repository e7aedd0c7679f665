//go:build integration

package cli_test

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/fulldisk"
)

// TestRunOnAFullDisk: a confined run whose data disk fills up starts
// nothing it could not undo, and says so in one sentence: with no room
// for its session, or for the checkpoint before it, nothing runs; when
// the checkpoint after it fails, the person is told its changes cannot
// be undone. Freed, the disk serves runs again and the audit holds.
func TestRunOnAFullDisk(t *testing.T) {
	mnt := fulldisk.New(t, "size=16m")
	ws := t.TempDir()
	// No build cache: it copies the host's npm index into the data dir
	// at start, in the background (8 MiB here), which would leave this
	// small disk more or less full by the time each step runs.
	clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\ncache_mib = -1\n")
	d := clitest.StartWith(t, filepath.Join(mnt, "data"), ws)
	if _, errOut, code := runIn(t.Context(), t, d, "--", "true"); code != 0 {
		t.Fatalf("before: exit %d, %s", code, errOut)
	}
	filler := filepath.Join(mnt, "filler")
	marker := filepath.Join(ws, "ran")
	refused := func(t *testing.T, want string) {
		t.Helper()
		_, errOut, code := runIn(t.Context(), t, d, "--", "touch", marker)
		if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing was started") {
			t.Fatalf("exit %d, stderr %q; want a refusal saying %q", code, errOut, want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the command ran")
		}
	}

	t.Run("no room for the session", func(t *testing.T) {
		fulldisk.Fill(filler, 64)
		defer os.Remove(filler)
		refused(t, "the disk holding the Gatehouse database is full")
	})
	t.Run("no room for the checkpoint before", func(t *testing.T) {
		// Room for the session's rows, not for the project's new file.
		writeRandom(t, filepath.Join(ws, "big.bin"), 8<<20)
		defer os.Remove(filepath.Join(ws, "big.bin"))
		leaveFree(t, filler, 1<<20)
		defer os.Remove(filler)
		refused(t, "could not be checkpointed before the run")
	})
	t.Run("no room for the checkpoint after", func(t *testing.T) {
		leaveFree(t, filler, 2<<20)
		defer os.Remove(filler)
		_, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", "head -c 8000000 /dev/urandom > after.bin")
		if code != 0 || !strings.Contains(errOut, "the checkpoint after the run failed") || !strings.Contains(errOut, "cannot be undone") {
			t.Fatalf("exit %d, stderr %q; want the run's status and the warning", code, errOut)
		}
	})
	if _, errOut, code := runIn(t.Context(), t, d, "--", "touch", marker); code != 0 {
		t.Fatalf("after freeing space: exit %d, %s", code, errOut)
	}
	if out, _, code := d.CLI(t.Context(), "audit", "verify"); code != 0 {
		t.Fatalf("verify after a full disk: %s", out)
	}
}

// writeRandom writes n bytes no store could shrink to path.
func writeRandom(t *testing.T, path string, n int) {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// leaveFree fills the disk holding path with path, then gives back free
// bytes of it.
func leaveFree(t *testing.T, path string, free int64) {
	t.Helper()
	fulldisk.Fill(path, 64)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, max(st.Size()-free, 0)); err != nil {
		t.Fatal(err)
	}
}
