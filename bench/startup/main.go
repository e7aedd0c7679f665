// Command startup measures how long a CLI command takes to start and exit
// with the small gatehouse against the desktop build (cgo, GTK, WebKit),
// run alternately in one run: every hook and MCP bridge an agent starts
// pays this. See bench/README.md.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/gatehouse", "the small gatehouse; gatehouse-desktop is looked for next to it")
	runs := flag.Int("runs", 51, "runs of each program (the median is reported)")
	args := flag.String("args", "", `the command to start (default "version", or "--help" where there is no version command)`)
	flag.Parse()
	if err := run(os.Stdout, *bin, *runs, *args); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, bin string, runs int, args string) error {
	desktop := filepath.Join(filepath.Dir(bin), "gatehouse-desktop")
	for _, p := range []string{bin, desktop} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s: %w (build both with `make binaries`)", p, err)
		}
	}
	argv := strings.Fields(args)
	if len(argv) == 0 {
		argv = []string{"version"}
		if exec.Command(bin, argv...).Run() != nil {
			argv = []string{"--help"}
		}
	}
	libs := func(p string) int {
		out, _ := exec.Command("ldd", p).Output()
		return strings.Count(string(out), "=>")
	}
	progs := []struct {
		name, path string
		times      []time.Duration
	}{{name: "gatehouse", path: bin}, {name: "gatehouse-desktop", path: desktop}}
	// Warm the page cache, then alternate so both see the same machine.
	for i := 0; i < 3; i++ {
		for _, p := range progs {
			if _, err := once(p.path, argv); err != nil {
				return err
			}
		}
	}
	for i := 0; i < runs; i++ {
		for j := range progs {
			d, err := once(progs[j].path, argv)
			if err != nil {
				return err
			}
			progs[j].times = append(progs[j].times, d)
		}
	}
	fmt.Fprintf(w, "start and exit of `%s %s`, %d runs each, alternating\n", "gatehouse", strings.Join(argv, " "), runs)
	fmt.Fprintf(w, "%-18s %8s %8s %8s %6s\n", "program", "p50", "p10", "p90", "libs")
	for _, p := range progs {
		sort.Slice(p.times, func(a, b int) bool { return p.times[a] < p.times[b] })
		fmt.Fprintf(w, "%-18s %8s %8s %8s %6d\n", p.name, ms(pct(p.times, 50)), ms(pct(p.times, 10)), ms(pct(p.times, 90)), libs(p.path))
	}
	small, big := pct(progs[0].times, 50), pct(progs[1].times, 50)
	fmt.Fprintf(w, "ratio (gatehouse / gatehouse-desktop, medians): %.3f; %.1f ms saved per start\n", float64(small)/float64(big), float64(big-small)/1e6)
	return nil
}

func once(path string, argv []string) (time.Duration, error) {
	cmd := exec.Command(path, argv...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s %v: %w", path, argv, err)
	}
	return time.Since(start), nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }
