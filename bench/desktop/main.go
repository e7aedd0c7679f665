// Command desktop measures the desktop app's resident cost and how fast
// its window comes back: total PSS (from /proc/PID/smaps_rollup) of the app,
// its window and WebKit processes and the tray, idle with the window hidden
// and with it shown; and the time from a request to show the window (what
// the tray's Open and a second launch send) until the page is on screen,
// for a window released while hidden (a new window process), one prepared
// hidden (the tray menu opened, or a card arrived) and one merely hidden.
// It runs its own Xvfb and session bus. See bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"time"
)

type config struct {
	bin     string
	runs    int
	release time.Duration
	spare   bool
	keep    bool
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "bin/gatehouse", "the small gatehouse; gatehouse-desktop must be next to it")
	flag.IntVar(&c.runs, "runs", 5, "runs of each measurement (the median is reported)")
	flag.DurationVar(&c.release, "release", 2*time.Second, "the app's --window-release (how long a hidden window keeps its process)")
	flag.BoolVar(&c.spare, "spare", true, "let the app keep a spare window process while the window is released (its default); -spare=false measures without one")
	flag.BoolVar(&c.keep, "keep", false, "keep the scratch directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config, w io.Writer) error {
	s, err := startSession(ctx, c)
	if err != nil {
		return err
	}
	defer s.close()
	app, err := s.startApp(ctx)
	if err != nil {
		return err
	}
	defer app.stop()

	// Idle, hidden from the start (login autostart): no window process.
	if err := sleep(ctx, 5*time.Second); err != nil {
		return err
	}
	hidden := app.memorySamples(ctx, c.runs)

	var cold, prepared, warm []time.Duration
	var shown []memory
	for i := 0; i < c.runs; i++ {
		// Released: the window process is gone (with -spare, a spare one
		// waits, started when it was released); showing starts a window.
		// A released window is asked for again seconds later at the
		// earliest, so the spare has had those to load.
		if i > 0 {
			if err := sleep(ctx, 2*time.Second); err != nil {
				return err
			}
		}
		d, err := app.show(ctx)
		if err != nil {
			return fmt.Errorf("cold show: %w", err)
		}
		cold = append(cold, d)
		if err := sleep(ctx, 2*time.Second); err != nil {
			return err
		}
		shown = append(shown, app.memory())
		// Hidden, shown again within the release delay.
		if err := app.hide(ctx); err != nil {
			return err
		}
		if d, err = app.show(ctx); err != nil {
			return fmt.Errorf("warm show: %w", err)
		}
		warm = append(warm, d)
		if err := app.hideAndRelease(ctx); err != nil {
			return err
		}
		// Prepared hidden (tray menu opened / a card arrived), then shown.
		if err := app.prepare(ctx); err != nil {
			return err
		}
		if d, err = app.show(ctx); err != nil {
			return fmt.Errorf("prepared show: %w", err)
		}
		prepared = append(prepared, d)
		if err := app.hideAndRelease(ctx); err != nil {
			return err
		}
	}
	released := app.memorySamples(ctx, c.runs)

	fmt.Fprintf(w, "desktop app under Xvfb, %d runs, spare window process %v, medians (PSS from smaps_rollup, MiB)\n", c.runs, c.spare)
	fmt.Fprintf(w, "%-44s %7s %7s %7s %7s %7s\n", "state", "total", "app", "window", "WebKit", "tray")
	for _, r := range []struct {
		name string
		m    []memory
	}{{"idle, started hidden (target total <= 100)", hidden}, {"window shown, idle", shown}, {"idle, hidden again and released", released}} {
		m := median(r.m)
		fmt.Fprintf(w, "%-44s %7.1f %7.1f %7.1f %7.1f %7.1f\n", r.name, m.total(), m.app, m.window, m.webkit, m.tray)
	}
	fmt.Fprintf(w, "window shown again, request to page on screen (target <= 300 ms):\n")
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"hidden within the release delay", warm}, {"prepared hidden (tray menu opened, card arrived)", prepared}, {releasedLabel(c.spare), cold}} {
		fmt.Fprintf(w, "  %-50s p50 %6.0f ms  (min %.0f, max %.0f)\n", r.name, ms(pct(r.d, 50)), ms(pct(r.d, 0)), ms(pct(r.d, 100)))
	}
	return nil
}

func releasedLabel(spare bool) string {
	if spare {
		return "released (the spare window process opens it)"
	}
	return "released (a new window process)"
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	if len(s) == 0 {
		return 0
	}
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
