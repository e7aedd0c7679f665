package proof

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/bench/medians"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/toolchain"
)

// goTestModule is a small module with a test, built against the
// standard library only (so nothing depends on the network).
var goTestModule = map[string]string{
	"go.mod":      "module example.test/bench\n\ngo 1.26\n",
	"sum.go":      "package bench\n\nimport \"strings\"\n\n// Words counts words.\nfunc Words(s string) int { return len(strings.Fields(s)) }\n",
	"sum_test.go": "package bench\n\nimport \"testing\"\n\nfunc TestWords(t *testing.T) {\n\tif Words(\"a b c\") != 3 {\n\t\tt.Fatal(\"count\")\n\t}\n}\n",
}

// benchGoTestCached measures the second `go test` of a small module, the
// case a persistent build cache serves: in the sandbox with the session's
// cache, against the same on the host with the host's own cache, in the
// same run, interleaved, after the agent's usual pause.
func benchGoTestCached(b *testing.B, be sandbox.Backend) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Fatalf("go is needed on PATH: %v", err)
	}
	goBin, _ = filepath.EvalSymlinks(goBin)
	home, _ := os.UserHomeDir()
	tc, err := toolchain.Find(toolchain.Options{Path: []string{filepath.Dir(goBin), "/usr/bin", "/bin"}, Home: home})
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	ws, cache, hostCache := filepath.Join(root, "ws"), filepath.Join(root, "cache"), filepath.Join(root, "host-cache")
	for _, d := range []string{ws, cache, hostCache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for name, body := range goTestModule {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := b.Context()
	s, err := be.Open(ctx, sandbox.SessionSpec{ID: "bench-go", Workspaces: []string{ws}, ReadOnly: tc.ReadOnly, Cache: cache, Limits: sandbox.DefaultLimits()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	env := []string{"PATH=" + tc.PathString(), "GOCACHE=" + filepath.Join(cache, "go-build"), "GOMODCACHE=" + filepath.Join(cache, "go-mod"), "GOTOOLCHAIN=local"}
	argv := []string{"go", "test", "./..."}
	lim := sandbox.DefaultLimits()
	lim.Wall = 10 * time.Minute
	// cached says the run must have hit the cache (every timed one).
	boxed := func(cached bool) time.Duration {
		start := time.Now()
		r, err := s.Run(ctx, sandbox.Spec{Argv: argv, Env: env, Limits: lim})
		took := time.Since(start)
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("sandboxed go test: %v exit %d\n%s%s", err, r.ExitCode, r.Stdout, r.Stderr)
		}
		if cached && !strings.Contains(string(r.Stdout), "(cached)") {
			b.Fatalf("the sandbox's second go test missed the cache:\n%s", r.Stdout)
		}
		return took
	}
	host := func() time.Duration {
		cmd := exec.Command(goBin, argv[1:]...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GOCACHE="+hostCache, "GOTOOLCHAIN=local")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("host go test: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	// Fill both caches.
	boxed(false)
	host()
	var onHost, inBox []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		onHost = append(onHost, host())
		b.StopTimer()
		// Not a wait: an agent's thinking time, which the benchmark models.
		time.Sleep(agentPause)
		b.StartTimer()
		inBox = append(inBox, boxed(true))
	}
	b.StopTimer()
	medians.Report(b, onHost, inBox, medians.Units{Base: "ms-host-median", Run: "ms-sandbox-median", Ratio: "x-host"})
}

// The target: ≤ 1.5× the host (before the cache: about 40×).
func BenchmarkGoTestCachedBwrap(b *testing.B)    { benchGoTestCached(b, newBwrap(b)) }
func BenchmarkGoTestCachedLandlock(b *testing.B) { benchGoTestCached(b, newLandlock(b)) }
