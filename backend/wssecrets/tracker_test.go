package wssecrets

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.test"}, args...)...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A session's workspace secrets are redacted whatever their kind and
// wherever they are: the worktree file, versions only history holds, a
// file a secret-named link points to, the first MiB of a large one; and
// a file the person changes is read again. What is exposed, short or
// binary is left alone.
func TestTrackerRedactsWorkspaceSecrets(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	write(t, filepath.Join(ws, ".env"), "API_KEY=history-only-value-111\n")
	git(t, ws, "init", "-q")
	git(t, ws, "add", ".env")
	git(t, ws, "commit", "-qm", "one")
	write(t, filepath.Join(ws, ".env"), "API_KEY=committed-value-222\nPORT=8080\nSHORT_TOKEN=abc1234\n")
	git(t, ws, "commit", "-qam", "two")
	write(t, filepath.Join(ws, ".env"), "API_KEY=worktree-value-333\n")
	write(t, filepath.Join(ws, "config", "real.env"), "DB_PASSWORD=linked-value-444\n")
	if err := os.Symlink("config/real.env", filepath.Join(ws, ".env.local")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, ".env.big"), "TOKEN=big-file-value-555\n"+strings.Repeat("# padding\n", 120_000)+"LATE_TOKEN=beyond-the-mib-666\n")
	write(t, filepath.Join(ws, "store.p12"), "\x00\x01binary-secret-777")
	write(t, filepath.Join(ws, ".env.test"), "API_KEY=exposed-value-888\n")

	expose, err := protect.ParseExposure([]string{".env.test"})
	if err != nil {
		t.Fatal(err)
	}
	live := secrets.NewLive()
	tr := New(live, expose, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tr.Track(t.Context(), []string{ws})

	cases := []struct {
		value    string
		redacted bool
	}{
		{"history-only-value-111", true},
		{"committed-value-222", true},
		{"worktree-value-333", true},
		{"linked-value-444", true},
		{"big-file-value-555", true},
		{"beyond-the-mib-666", false}, // past the first MiB
		{"binary-secret-777", false},  // a binary file is not parsed
		{"exposed-value-888", false},
		{"abc1234", false}, // shorter than 8
		{"8080", false},
	}
	for _, tc := range cases {
		got := live.String("x " + tc.value + " y")
		if strings.Contains(got, tc.value) == tc.redacted {
			t.Errorf("%s: redacted=%v, got %q", tc.value, !strings.Contains(got, tc.value), got)
		}
	}
	if got := live.String("k=worktree-value-333"); got != "k=[REDACTED:.env:API_KEY]" {
		t.Errorf("marker: %q", got)
	}

	// The person changes .env mid-session: its new value is redacted at
	// the next use after the change is seen.
	write(t, filepath.Join(ws, ".env"), "API_KEY=changed-mid-session-999\n")
	future := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(ws, ".env"), future, future); err != nil {
		t.Fatal(err)
	}
	waitfor.For(t, 5*time.Second, "the changed .env's value to be redacted", func() bool {
		return !strings.Contains(live.String("changed-mid-session-999"), "changed-mid-session-999")
	})
}

// A repository whose history holds a thousand .env versions: the
// versions in the newest 200 commits touching it are redacted, older
// ones are not (the bound the README states), and reading stays within
// its time bound.
func TestTrackerHistoryIsBounded(t *testing.T) {
	ws := t.TempDir()
	git(t, ws, "init", "-q", "-b", "main")
	var stream strings.Builder
	for i := 1; i <= 1000; i++ {
		body := fmt.Sprintf("API_KEY=version-%04d-secret\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter t <t@example.test> %d +0000\ndata 1\nc\n", 1700000000+i)
		fmt.Fprintf(&stream, "M 100644 inline .env\ndata %d\n%s\n", len(body), body)
	}
	c := exec.Command("git", "fast-import", "--quiet")
	c.Dir = ws
	c.Stdin = strings.NewReader(stream.String())
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v %s", err, out)
	}
	git(t, ws, "checkout", "-q", "main")
	live := secrets.NewLive()
	tr := New(live, protect.Exposure{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	start := time.Now()
	tr.Track(t.Context(), []string{ws})
	if d := time.Since(start); d > historyTime+2*time.Second {
		t.Errorf("reading history took %v", d)
	}
	for _, tc := range []struct {
		version  int
		redacted bool
	}{{1000, true}, {900, true}, {801, true}, {700, false}, {1, false}} {
		v := fmt.Sprintf("version-%04d-secret", tc.version)
		if got := live.String(v); (got != v) != tc.redacted {
			t.Errorf("%s: redacted=%v", v, got != v)
		}
	}
}
