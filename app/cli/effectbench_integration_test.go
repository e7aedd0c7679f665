//go:build integration

package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/bench/medians"
)

// Staged runs' speed targets, each measured against its alternative in
// the same run (the machines are noisy: medians and ratios).

// fillWorkspace makes n small files, 100 to a directory.
func fillWorkspace(b *testing.B, ws string, n int) {
	b.Helper()
	for i := 0; i < n; i++ {
		dir := filepath.Join(ws, "pkg", fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", i%100)), []byte(fmt.Sprintf("package p\n\nconst X%d = %d\n", i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDaemon(b *testing.B, files int, config string) (*clitest.Daemon, *mcp.ClientSession) {
	b.Helper()
	base := b.TempDir()
	ws := filepath.Join(base, "ws")
	if config != "" {
		clitest.WriteConfig(b, ws, "config.toml", config)
	}
	fillWorkspace(b, ws, files)
	d := clitest.StartWith(b, filepath.Join(base, "data"), ws)
	return d, d.MCP(b.Context(), "bench")
}

func timedCall(b *testing.B, s *mcp.ClientSession, argv ...string) time.Duration {
	b.Helper()
	t0 := time.Now()
	r, err := s.CallTool(b.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": argv}})
	if err != nil || r.IsError {
		b.Fatalf("%v: %v %+v", argv, err, r)
	}
	return time.Since(t0)
}

// BenchmarkStagedCallMonorepo: the same calls through MCP on a 100-file
// and a 100,000-file workspace, alternated (target: big ≤ 1.5× small).
// "true" changes nothing; "write" creates one file, which is applied with
// its scoped checkpoints. Before staging, the walk of the workspace made
// the big one 22× the small.
func BenchmarkStagedCallMonorepo(b *testing.B) {
	_, small := benchDaemon(b, 100, "")
	_, big := benchDaemon(b, 100_000, "")
	for _, s := range []*mcp.ClientSession{small, big} {
		// The session's first checkpoint reads the whole workspace once.
		timedCall(b, s, "sh", "-c", "echo warm > warm.txt")
	}
	var st, bt, sw, bw []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st = append(st, timedCall(b, small, "true"))
		bt = append(bt, timedCall(b, big, "true"))
		f := "out" + strconv.Itoa(i) + ".txt"
		sw = append(sw, timedCall(b, small, "sh", "-c", "echo x > "+f))
		bw = append(bw, timedCall(b, big, "sh", "-c", "echo x > "+f))
	}
	medians.Report(b, st, bt, medians.Units{Base: "small-true-p50-ms", Run: "big-true-p50-ms", Ratio: "true-ratio"})
	medians.Report(b, sw, bw, medians.Units{Base: "small-write-p50-ms", Run: "big-write-p50-ms", Ratio: "write-ratio"})
}

// BenchmarkStagedWrite20kFiles: a command that writes 20,000 files,
// staged and applied, against the same command run unstaged between two
// checkpoints (target: staged ≤ 2× unstaged).
func BenchmarkStagedWrite20kFiles(b *testing.B) {
	_, staged := benchDaemon(b, 100, "")
	_, unstaged := benchDaemon(b, 100, "[sandbox]\nunstaged = true\n")
	write := func(s *mcp.ClientSession, dir string) time.Duration {
		return timedCall(b, s, "/usr/bin/python3", "-c",
			"import os\nos.makedirs('"+dir+"/lib')\nfor i in range(20000):\n  open('"+dir+"/lib/m%d.js' % i, 'w').write('module.exports = %d\\n' % i)")
	}
	write(staged, "warm")
	write(unstaged, "warm")
	var st, ut []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := "install" + strconv.Itoa(i)
		st = append(st, write(staged, dir))
		ut = append(ut, write(unstaged, dir))
	}
	medians.Report(b, ut, st, medians.Units{Base: "unstaged-p50-ms", Run: "staged-p50-ms", Ratio: "ratio"})
}

// BenchmarkStagedGitStatus: git status over a 20,000-file repository,
// timed by the command itself, inside a staged run and natively on the
// host (target: staged ≤ 2× native). Gatehouse's own per-call cost is
// in BenchmarkStagedCallMonorepo.
func BenchmarkStagedGitStatus(b *testing.B) {
	d, s := benchDaemon(b, 20_000, "")
	for _, args := range [][]string{{"init", "-q"}, {"config", "gc.auto", "0"}, {"config", "maintenance.auto", "false"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@example.test", "commit", "-qm", "all"}} {
		gitWith(b, d.Workspace, nil, args...)
	}
	script := `s=$(date +%s%N); git status --porcelain >/dev/null; e=$(date +%s%N); echo $((e-s))`
	inside := func() time.Duration {
		r, err := s.CallTool(b.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", script}}})
		if err != nil || r.IsError {
			b.Fatalf("git status: %v %+v", err, r)
		}
		return nanos(b, clitest.Text(b, r))
	}
	native := func() time.Duration {
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = d.Workspace
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		return nanos(b, string(out))
	}
	inside()
	native()
	var it, nt []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it = append(it, inside())
		nt = append(nt, native())
	}
	medians.Report(b, nt, it, medians.Units{Base: "native-p50-ms", Run: "staged-p50-ms", Ratio: "ratio"})
}

// nanos reads the last number in a command's output as nanoseconds.
func nanos(b *testing.B, out string) time.Duration {
	fields := strings.Fields(out)
	for i := len(fields) - 1; i >= 0; i-- {
		if n, err := strconv.ParseInt(fields[i], 10, 64); err == nil {
			return time.Duration(n)
		}
	}
	b.Fatalf("no timing in %q", out)
	return 0
}
