//go:build integration

package proof

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/bwrap"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// nativeBackends are the backends every user of this machine can run.
func nativeBackends(t *testing.T) []sandbox.Backend {
	t.Helper()
	bw, err := bwrap.New(t.Context(), bwrap.Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable (install bubblewrap and allow user namespaces): %v", err)
	}
	ll, err := landlock.New(landlock.Options{})
	if err != nil {
		t.Fatalf("landlock backend unavailable: %v", err)
	}
	return []sandbox.Backend{bw, ll}
}

func allBackends(t *testing.T) []sandbox.Backend {
	bs := nativeBackends(t)
	if os.Getenv(unprivEnv) == "" {
		bs = append(bs, newPodman(t))
	}
	return bs
}

func openSession(t *testing.T, b sandbox.Backend, ws string) sandbox.Session {
	t.Helper()
	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "t", Workspaces: []string{ws}, Limits: SessionLimits()})
	if err != nil {
		t.Fatalf("%s: open: %v", b.Name(), err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// Bad input is refused with a typed error before anything runs: each
// spec would create a marker file if it ran.
func TestBadInputRefusedBeforeRunning(t *testing.T) {
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			root := t.TempDir()
			ws := filepath.Join(root, "ws")
			outside := filepath.Join(root, "outside")
			must(t, os.MkdirAll(ws, 0o755), os.MkdirAll(outside, 0o755), os.Symlink(outside, filepath.Join(ws, "link")))
			s := openSession(t, b, ws)
			touch := []string{"sh", "-c", "touch " + filepath.Join(ws, "ran")}
			tests := []struct {
				name string
				spec sandbox.Spec
				want error
			}{
				{"empty argv", sandbox.Spec{}, sandbox.ErrEmptyArgv},
				{"NUL", sandbox.Spec{Argv: append(touch, "a\x00b")}, sandbox.ErrNUL},
				{"cwd outside", sandbox.Spec{Argv: touch, Dir: outside}, sandbox.ErrOutsideWorkspace},
				{"dotdot", sandbox.Spec{Argv: touch, Dir: "../outside"}, sandbox.ErrPathEscape},
				{"symlink", sandbox.Spec{Argv: touch, Dir: "link"}, sandbox.ErrPathEscape},
				{"not on PATH", sandbox.Spec{Argv: []string{"gatehouse-no-such-program"}}, sandbox.ErrNotFound},
			}
			for _, tc := range tests {
				_, err := s.Run(t.Context(), tc.spec)
				if !errors.Is(err, tc.want) {
					t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
				t.Fatal("a rejected spec ran")
			}
			// A workspace that is a symlink to / never opens a session.
			must(t, os.Symlink("/", filepath.Join(root, "slash")))
			if _, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "x", Workspaces: []string{filepath.Join(root, "slash")}}); !errors.Is(err, sandbox.ErrUnsafeWorkspace) {
				t.Errorf("workspace symlink to /: got %v", err)
			}
		})
	}
}

// Cancelling the context (the daemon's kill switch) kills the whole
// tree, including a grandchild that left with setsid, and Run returns.
func TestCancelKillsWholeTree(t *testing.T) {
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			s := openSession(t, b, t.TempDir())
			marks := []string{strconv.Itoa(700000 + os.Getpid()%1000), strconv.Itoa(800000 + os.Getpid()%1000)}
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				waitfor.Until(60*time.Second, 20*time.Millisecond, func() bool { return countSleepers(marks) >= 2 })
				cancel()
			}()
			lim := sandbox.DefaultLimits()
			lim.Grace = time.Second
			r, err := s.Run(ctx, sandbox.Spec{
				Argv:   []string{"sh", "-c", "setsid sleep " + marks[0] + " & sleep " + marks[1] + "; exit 0"},
				Env:    []string{"PATH=/usr/bin:/bin"},
				Limits: lim,
			})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Killed || r.KillReason != sandbox.KillCanceled {
				t.Errorf("result %+v: want killed for cancel", r)
			}
			if !waitfor.Until(10*time.Second, 50*time.Millisecond, func() bool { return countSleepers(marks) == 0 }) {
				t.Fatalf("sleepers survived the kill")
			}
		})
	}
}

func countSleepers(marks []string) int {
	return killMatching(func(pid int) bool {
		a := proctree.Cmdline(pid)
		return len(a) == 2 && strings.HasSuffix(a[0], "sleep") && (a[1] == marks[0] || a[1] == marks[1])
	}, 0)
}

// Output beyond the cap is dropped with a marker, not buffered, and
// counted.
func TestOutputCapped(t *testing.T) {
	for _, b := range nativeBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			s := openSession(t, b, t.TempDir())
			lim := sandbox.DefaultLimits()
			lim.OutputBytes = 4096
			r, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"head", "-c", "10000000", "/dev/zero"}, Limits: lim})
			if err != nil {
				t.Fatal(err)
			}
			if !r.StdoutTruncated || len(r.Stdout) > 4096+100 || !strings.Contains(string(r.Stdout), "output truncated") {
				t.Fatalf("stdout %d bytes, truncated=%v", len(r.Stdout), r.StdoutTruncated)
			}
			// What it wrote is counted all the same.
			if r.StdoutBytes != 10000000 {
				t.Errorf("the command wrote 10000000 bytes, the result says %d", r.StdoutBytes)
			}
		})
	}
}

func must(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunsAreBounded: a run allowed 16 processes cannot hold 40 sleeps.
// As root, which ignores RLIMIT_NPROC, only the run's pids cgroup bounds
// it, however the run joined it (bwrap is started directly and its
// helper joins; Landlock's helper joins itself); as another user
// (TestUnprivileged runs this too) RLIMIT_NPROC does.
func TestRunsAreBounded(t *testing.T) {
	for _, b := range nativeBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			s := openSession(t, b, t.TempDir())
			r := runSh(t, s, `for i in $(seq 40); do sleep 2 & done; jobs -p | wc -l`, func(s *sandbox.Spec) {
				s.Limits.Processes = 16
			})
			if !strings.Contains(strings.ToLower(string(r.Stderr)), "fork") {
				t.Fatalf("40 processes started in a run allowed 16 (no fork failed); jobs: %s, stderr: %s", r.Stdout, r.Stderr)
			}
		})
	}
}
