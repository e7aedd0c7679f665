package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
	"github.com/gatehouse-dev/gatehouse/bench/medians"
)

type config struct {
	Files     int
	MB        int64
	Runs      int
	FirstRuns int
	Dir       string
	Keep      bool
}

func defaultConfig() config { return config{Files: 100_000, MB: 250, Runs: 5, FirstRuns: 1} }

// report holds medians; the test checks it is filled in, never its values.
type report struct {
	FirstOurs, FirstGit       time.Duration
	NoChangeOurs, NoChangeGit time.Duration
	TenOurs, TenGit           time.Duration
	RollbackOurs, RollbackGit time.Duration
	RollbackPlan              time.Duration
	StatFloor                 time.Duration
	SizeOurs, SizeGit         int64
}

func run(ctx context.Context, cfg config, out io.Writer, log *slog.Logger) (*report, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git is needed as the baseline; install it: %w", err)
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "gatehouse-bench-")
		if err != nil {
			return nil, err
		}
		dir = d
		if !cfg.Keep {
			defer os.RemoveAll(dir)
		}
	}
	wsDir := filepath.Join(dir, "ws")
	shadow := filepath.Join(dir, "shadow.git")
	stores := filepath.Join(dir, "stores")
	for _, d := range []string{wsDir, shadow, stores} {
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(out, "generating %d files, %d MiB in %s\n", cfg.Files, cfg.MB, wsDir)
	ws, err := generate(wsDir, cfg.Files, cfg.MB, 42)
	if err != nil {
		return nil, fmt.Errorf("generate workspace: %w", err)
	}
	g := &shadowGit{dir: shadow, ws: wsDir}
	if err := g.init(ctx); err != nil {
		return nil, err
	}
	rep := &report{}
	roots := []string{wsDir}

	// 1. First checkpoint. Each run starts from an empty store / git dir.
	var oursFirst, gitFirst []time.Duration
	var store *snapshot.Store
	for i := range max(cfg.FirstRuns, 1) {
		if i > 0 {
			os.RemoveAll(shadow)
			if err := g.init(ctx); err != nil {
				return nil, err
			}
		}
		d, err := timed(func() error { return g.commit(ctx) })
		if err != nil {
			return nil, err
		}
		gitFirst = append(gitFirst, d)
		if store != nil {
			store.Close()
		}
		sdir := filepath.Join(stores, fmt.Sprint(i))
		store, err = snapshot.Open(sdir, snapshot.Options{}, log)
		if err != nil {
			return nil, err
		}
		d, err = timed(func() error {
			_, err := store.Checkpoint(ctx, snapshot.Request{Session: "bench", CallID: "first", Phase: snapshot.Pre, Roots: roots})
			return err
		})
		if err != nil {
			return nil, err
		}
		oursFirst = append(oursFirst, d)
	}
	defer store.Close()
	rep.FirstOurs, rep.FirstGit = medians.Of(oursFirst), medians.Of(gitFirst)

	// 2. Checkpoint with nothing changed.
	cp := func(call string, phase snapshot.Phase) (snapshot.Checkpoint, error) {
		return store.Checkpoint(ctx, snapshot.Request{Session: "bench", CallID: call, Phase: phase, Roots: roots})
	}
	// versus times cfg.Runs checkpoints, each after n files changed,
	// against as many shadow-git commits, and gives both medians.
	versus := func(call string, n int, phase snapshot.Phase) (ours, theirs time.Duration, err error) {
		var a, b []time.Duration
		for i := range cfg.Runs {
			if n > 0 {
				if _, err := ws.touch(n); err != nil {
					return 0, 0, err
				}
			}
			d, err := timed(func() error { _, err := cp(fmt.Sprint(call, i), phase); return err })
			if err != nil {
				return 0, 0, err
			}
			a = append(a, d)
			if d, err = timed(func() error { return g.commit(ctx) }); err != nil {
				return 0, 0, err
			}
			b = append(b, d)
		}
		return medians.Of(a), medians.Of(b), nil
	}
	if rep.NoChangeOurs, rep.NoChangeGit, err = versus("nochange", 0, snapshot.Pre); err != nil {
		return nil, err
	}

	// 3. Checkpoint after 10 files changed.
	if rep.TenOurs, rep.TenGit, err = versus("ten", 10, snapshot.Post); err != nil {
		return nil, err
	}

	// 4. Roll back 100 changed files (plan + apply, as the daemon does).
	var a, b []time.Duration
	var plans []time.Duration
	for i := range cfg.Runs {
		call := fmt.Sprint("hundred", i)
		pre, err := cp(call, snapshot.Pre)
		if err != nil {
			return nil, err
		}
		if _, err := ws.touch(100); err != nil {
			return nil, err
		}
		if _, err := cp(call, snapshot.Post); err != nil {
			return nil, err
		}
		var planD time.Duration
		d, err := timed(func() error {
			t0 := time.Now()
			p, err := store.Plan(ctx, snapshot.RollbackRequest{Session: "bench", To: pre.ID})
			if err != nil {
				return err
			}
			planD = time.Since(t0)
			if len(p.Items) != 100 {
				return fmt.Errorf("rollback plan has %d items, want 100", len(p.Items))
			}
			_, err = store.Apply(ctx, p)
			return err
		})
		if err != nil {
			return nil, err
		}
		a = append(a, d)
		plans = append(plans, planD)
		// git: the same 100 files changed again, restored by reset --hard.
		if _, err := ws.touch(100); err != nil {
			return nil, err
		}
		if d, err = timed(func() error { return g.git(ctx, "reset", "-q", "--hard", "HEAD") }); err != nil {
			return nil, err
		}
		b = append(b, d)
		// Bring our store up to date with what git restored, outside timing.
		if _, err := cp(call+"-sync", snapshot.Pre); err != nil {
			return nil, err
		}
	}
	rep.RollbackOurs, rep.RollbackGit, rep.RollbackPlan = medians.Of(a), medians.Of(b), medians.Of(plans)

	// Reference: the cost of just stat'ing every file once (find), which
	// bounds any checkpoint that must notice every change.
	a = nil
	for range cfg.Runs {
		d, err := timed(func() error {
			return exec.CommandContext(ctx, "find", wsDir, "-printf", "%s %T@ %C@ %i\n").Run()
		})
		if err != nil {
			return nil, fmt.Errorf("find: %w", err)
		}
		a = append(a, d)
	}
	rep.StatFloor = medians.Of(a)

	// 5. Store size: ours as is, shadow git after git gc.
	store.Close()
	if err := g.git(ctx, "gc", "-q"); err != nil {
		return nil, err
	}
	lastStore := filepath.Join(stores, fmt.Sprint(max(cfg.FirstRuns, 1)-1))
	if rep.SizeOurs, err = duBytes(lastStore); err != nil {
		return nil, err
	}
	if rep.SizeGit, err = duBytes(shadow); err != nil {
		return nil, err
	}
	printReport(out, cfg, rep)
	return rep, nil
}

func printReport(out io.Writer, cfg config, r *report) {
	fmt.Fprintf(out, "\nworkspace: %d files, %d MiB; medians of %d runs (first checkpoint: %d)\n\n", cfg.Files, cfg.MB, cfg.Runs, max(cfg.FirstRuns, 1))
	fmt.Fprintf(out, "%-34s %12s %12s %8s  %s\n", "measurement", "gatehouse", "shadow git", "ratio", "target")
	row := func(name string, ours, git time.Duration, target string) {
		fmt.Fprintf(out, "%-34s %12s %12s %8.3f  %s\n", name, ms(ours), ms(git), float64(ours)/float64(max(git, 1)), target)
	}
	row("first checkpoint", r.FirstOurs, r.FirstGit, "ratio <= 0.333")
	row("no-change checkpoint", r.NoChangeOurs, r.NoChangeGit, "<= 100 ms")
	row("checkpoint after 10 files change", r.TenOurs, r.TenGit, "<= 120 ms")
	row("rollback of 100 files (git: reset)", r.RollbackOurs, r.RollbackGit, "<= 150 ms")
	fmt.Fprintf(out, "%-34s %12s\n", "  of which plan (preview)", ms(r.RollbackPlan))
	fmt.Fprintf(out, "%-34s %12s\n", "stat floor (find -printf, 1 core)", ms(r.StatFloor))
	fmt.Fprintf(out, "%-34s %12s %12s %8.3f  %s\n", "store size (git after gc)", mib(r.SizeOurs), mib(r.SizeGit),
		float64(r.SizeOurs)/float64(max(r.SizeGit, 1)), "ratio <= 1")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
func mib(n int64) string        { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func timed(f func() error) (time.Duration, error) {
	t0 := time.Now()
	err := f()
	return time.Since(t0), err
}

// duBytes is the disk space used under dir (allocated blocks).
func duBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += blocksOf(info)
		return nil
	})
	return n, err
}

// shadowGit is the baseline: a git dir outside the workspace.
type shadowGit struct{ dir, ws string }

func (g *shadowGit) git(ctx context.Context, args ...string) error {
	full := append([]string{"--git-dir=" + g.dir, "--work-tree=" + g.ws}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if outb, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %w: %s", args, err, outb)
	}
	return nil
}

func (g *shadowGit) init(ctx context.Context) error {
	if err := g.git(ctx, "init", "-q"); err != nil {
		return err
	}
	// No background auto-gc: it would run during our measurements.
	for _, kv := range [][2]string{{"user.name", "bench"}, {"user.email", "bench@localhost"}, {"gc.auto", "0"}} {
		if err := g.git(ctx, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// commit is the shadow-git checkpoint: git add -A && git commit.
func (g *shadowGit) commit(ctx context.Context) error {
	if err := g.git(ctx, "add", "-A"); err != nil {
		return err
	}
	return g.git(ctx, "commit", "-q", "--allow-empty", "-m", "x")
}
