//go:build integration

package proof

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/bench/medians"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// createScript makes n empty files in the directory it is given, one
// open(O_CREAT) each, as an install or a build writes its outputs.
func createScript(n int) string {
	return `import os, shutil, sys
d = sys.argv[1]
shutil.rmtree(d, ignore_errors=True); os.mkdir(d)
for i in range(` + strconv.Itoa(n) + `):
    open(d + "/f%d" % i, "w").close()
`
}

// BenchmarkCreate2000Files measures what the creation guard costs a run
// that writes the workspace itself (bwrap, unstaged): every new entry,
// wherever it is, is made by the run's first process. Against the same
// script in a staged run (no guard) and on the host, interleaved in the
// same run. The files go to a tmpfs (the run's /tmp, the host's
// /dev/shm): on a disk, the filesystem's own cost varies more from one
// directory to the next than the guard costs.
func BenchmarkCreate2000Files(b *testing.B) {
	const n = 2000
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		b.Fatalf("%s is needed: %v", py, err)
	}
	shm, err := os.MkdirTemp("/dev/shm", "gatehouse-bench-")
	if err != nil {
		b.Fatalf("a tmpfs for the host's files: %v", err)
	}
	defer os.RemoveAll(shm)
	ctx := b.Context()
	be := newBwrap(b)
	root := b.TempDir()
	ws, stageRoot := filepath.Join(root, "ws"), filepath.Join(root, "stage")
	for _, d := range []string{ws, stageRoot, filepath.Join(ws, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	s, err := be.Open(ctx, sandbox.SessionSpec{ID: "bench-create", Workspaces: []string{ws}, Limits: SessionLimits(), StageRoot: stageRoot})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	script := createScript(n)
	run := func(stage *sandbox.Stage) time.Duration {
		spec := sandbox.Spec{Argv: []string{py, "-c", script, "/tmp/out"}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits(), Stage: stage}
		start := time.Now()
		r, err := s.Run(ctx, spec)
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("run: %v exit %d %s", err, r.ExitCode, r.Stderr)
		}
		return time.Since(start)
	}
	host := func() time.Duration {
		cmd := exec.Command(py, "-c", script, filepath.Join(shm, "out"))
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("host: %v %s", err, out)
		}
		return time.Since(start)
	}
	var hostT, guarded, staged []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hostT = append(hostT, host())
		guarded = append(guarded, run(nil))
		dir := "create-" + strconv.Itoa(i)
		for _, d := range []string{sandbox.StageUpper(stageRoot, dir, 0), sandbox.StageWork(stageRoot, dir, 0)} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				b.Fatal(err)
			}
		}
		staged = append(staged, run(&sandbox.Stage{Dir: dir}))
	}
	b.StopTimer()
	mh, mg, ms := medians.Of(hostT), medians.Of(guarded), medians.Of(staged)
	b.ReportMetric(medians.Ms(mh), "ms-host")
	b.ReportMetric(medians.Ms(mg), "ms-guarded")
	b.ReportMetric(medians.Ms(ms), "ms-staged")
	b.ReportMetric(float64(mg-ms)/float64(n)/1000, "µs-per-entry-vs-staged")
	b.ReportMetric(float64(mg)/float64(mh), "x-host")
}
