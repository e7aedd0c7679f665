package proof

import (
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/bench/medians"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/bwrap"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
)

func bareTrue(b *testing.B) time.Duration {
	start := time.Now()
	if err := exec.Command("/bin/true").Run(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// agentPause stands for an agent's thinking time between two calls, in
// which a session builds the sandbox for its next call. Back-to-back
// calls (no pause) mostly wait for that build.
const agentPause = 150 * time.Millisecond

// benchTrue measures a sandboxed /bin/true against a bare exec of it,
// interleaved in the same run so machine noise hits both alike. pause
// goes by before each sandboxed call.
func benchTrue(b *testing.B, be sandbox.Backend, pause time.Duration) {
	benchTrueNet(b, be, pause, sandbox.Network{Mode: sandbox.NetNone})
}

func benchTrueNet(b *testing.B, be sandbox.Backend, pause time.Duration, network sandbox.Network) {
	benchTrueWith(b, be, pause, sandbox.SessionSpec{}, sandbox.Spec{Network: network})
}

// benchTrueWith runs /bin/true in a session opened with ss's stage root,
// with spec's network and read-only flag.
func benchTrueWith(b *testing.B, be sandbox.Backend, pause time.Duration, ss sandbox.SessionSpec, sp sandbox.Spec) {
	ctx := b.Context()
	s, err := be.Open(ctx, sandbox.SessionSpec{ID: "bench", Workspaces: []string{b.TempDir()}, Limits: SessionLimits(), StageRoot: ss.StageRoot})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	spec := sandbox.Spec{Argv: []string{"/bin/true"}, Limits: sandbox.DefaultLimits(), Network: sp.Network, ReadOnlyWorkspaces: sp.ReadOnlyWorkspaces}
	var bare, boxed []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bare = append(bare, bareTrue(b))
		if pause > 0 {
			b.StopTimer()
			// Not a wait: the pause is what is measured (an agent thinking).
			time.Sleep(pause)
			b.StartTimer()
		}
		start := time.Now()
		r, err := s.Run(ctx, spec)
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("run: %v exit %d %s", err, r.ExitCode, r.Stderr)
		}
		boxed = append(boxed, time.Since(start))
	}
	b.StopTimer()
	medians.Report(b, bare, boxed, medians.Units{Base: "ms-bare-median", Run: "ms-median", Added: "ms-added", Ratio: "x-bare"})
}

func newBwrap(b testing.TB) sandbox.Backend {
	be, err := bwrap.New(b.Context(), bwrap.Options{})
	if err != nil {
		b.Fatalf("bwrap unavailable: %v", err)
	}
	return be
}

func newLandlock(b *testing.B) sandbox.Backend {
	be, err := landlock.New(landlock.Options{})
	if err != nil {
		b.Fatalf("landlock unavailable: %v", err)
	}
	return be
}

// The figure: a call after the agent paused, as calls come.
func BenchmarkTrueBwrap(b *testing.B)         { benchTrue(b, newBwrap(b), agentPause) }
func BenchmarkTrueLandlock(b *testing.B)      { benchTrue(b, newLandlock(b), agentPause) }
func BenchmarkTrueContainerExec(b *testing.B) { benchTrue(b, newPodman(b), agentPause) }

// As the daemon runs it: a session with a stage root, so the read-only
// `true` runs in namespaces of its own inside the container.
func BenchmarkTrueContainerExecNested(b *testing.B) {
	benchTrueWith(b, newPodman(b), agentPause, sandbox.SessionSpec{StageRoot: b.TempDir()}, sandbox.Spec{ReadOnlyWorkspaces: true})
}

// With the run's proxy (the daemon's default): its listener per run.
func BenchmarkTrueBwrapProxy(b *testing.B) {
	benchTrueNet(b, newBwrap(b), agentPause, sandbox.Network{Mode: sandbox.NetProxy, Proxy: &fakeProxy{}})
}
func BenchmarkTrueLandlockProxy(b *testing.B) {
	benchTrueNet(b, newLandlock(b), agentPause, sandbox.Network{Mode: sandbox.NetProxy, Proxy: &fakeProxy{}})
}

// Back to back: each call also waits for most of its sandbox's build.
func BenchmarkTrueBwrapBackToBack(b *testing.B)         { benchTrue(b, newBwrap(b), 0) }
func BenchmarkTrueLandlockBackToBack(b *testing.B)      { benchTrue(b, newLandlock(b), 0) }
func BenchmarkTrueContainerExecBackToBack(b *testing.B) { benchTrue(b, newPodman(b), 0) }

// BenchmarkContainerColdStart is one session's container start, first
// exec and removal.
func BenchmarkContainerColdStart(b *testing.B) {
	be := newPodman(b)
	ctx := b.Context()
	var bare, cold []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bare = append(bare, bareTrue(b))
		start := time.Now()
		s, err := be.Open(ctx, sandbox.SessionSpec{ID: "cold", Workspaces: []string{b.TempDir()}, Limits: SessionLimits()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Run(ctx, sandbox.Spec{Argv: []string{"true"}, Limits: sandbox.DefaultLimits()}); err != nil {
			b.Fatal(err)
		}
		cold = append(cold, time.Since(start))
		if err := s.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	medians.Report(b, bare, cold, medians.Units{Run: "ms-start+exec-median", Ratio: "x-bare"})
}

const streamBytes = 100 << 20

// BenchmarkCapture100MiB streams 100 MiB of stdout through the capture
// path (1 MiB cap, truncated without buffering the rest), bare and
// inside bwrap, against a bare exec writing to io.Discard.
func BenchmarkCapture100MiB(b *testing.B) {
	be, err := bwrap.New(b.Context(), bwrap.Options{})
	if err != nil {
		b.Fatalf("bwrap unavailable: %v", err)
	}
	ctx := b.Context()
	s, err := be.Open(ctx, sandbox.SessionSpec{ID: "stream", Workspaces: []string{b.TempDir()}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	argv := []string{"head", "-c", "104857600", "/dev/zero"}
	var discard, capture, boxed time.Duration
	b.SetBytes(streamBytes)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		discard += time.Since(start)

		start = time.Now()
		c := sandbox.NewCapture(sandbox.DefaultOutputBytes, nil)
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Stdout = c
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		capture += time.Since(start)
		if c.Total() != streamBytes || !c.Truncated() {
			b.Fatalf("captured %d bytes", c.Total())
		}

		start = time.Now()
		r, err := s.Run(ctx, sandbox.Spec{Argv: argv, Limits: sandbox.DefaultLimits()})
		if err != nil || !r.StdoutTruncated {
			b.Fatalf("run: %v truncated=%v", err, r.StdoutTruncated)
		}
		boxed += time.Since(start)
	}
	mibps := func(d time.Duration) float64 { return float64(b.N) * 100 / d.Seconds() }
	b.ReportMetric(mibps(discard), "MiB/s-bare-discard")
	b.ReportMetric(mibps(capture), "MiB/s-capture")
	b.ReportMetric(mibps(boxed), "MiB/s-bwrap-capture")
	b.ReportMetric(float64(capture)/float64(discard), "x-bare")
}
