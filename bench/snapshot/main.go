// Command snapshot measures Gatehouse checkpoints and rollbacks against
// shadow git (git add -A && git commit into a separate git dir), side by
// side on one generated workspace. See bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
)

func main() {
	cfg := defaultConfig()
	flag.IntVar(&cfg.Files, "files", cfg.Files, "number of files in the generated workspace")
	flag.Int64Var(&cfg.MB, "mb", cfg.MB, "total size of the workspace in MiB")
	flag.IntVar(&cfg.Runs, "runs", cfg.Runs, "runs per cheap measurement (median is reported)")
	flag.IntVar(&cfg.FirstRuns, "first-runs", cfg.FirstRuns, "runs of the (slow) first checkpoint")
	flag.StringVar(&cfg.Dir, "dir", cfg.Dir, "scratch directory (default: a new temp dir, removed afterwards)")
	flag.BoolVar(&cfg.Keep, "keep", false, "keep the scratch directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if _, err := run(ctx, cfg, os.Stdout, log); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
