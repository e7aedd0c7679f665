package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// memory is the PSS, in MiB, of the app's process tree by part.
type memory struct{ app, window, webkit, tray float64 }

func (m memory) total() float64 { return m.app + m.window + m.webkit + m.tray }

// treeMemory sums PSS over root and its descendants.
func treeMemory(root int) memory {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := ppid(pid); pp > 0 {
			children[pp] = append(children[pp], pid)
		}
	}
	var m memory
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		queue = append(queue, children[pid]...)
		pss := pssMiB(pid)
		exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
		cl, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		switch base := filepath.Base(exe); {
		case pid == root:
			m.app += pss
		case strings.HasPrefix(base, "WebKit"):
			m.webkit += pss
		case base == "gatehouse-desktop":
			m.window += pss
		case strings.HasSuffix(strings.TrimRight(string(cl), "\x00"), "\x00tray"):
			m.tray += pss
		}
	}
	return m
}

func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndex(s, ")")+1:])
	if len(f) < 2 || f[0] == "Z" {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func pssMiB(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			kib, _ := strconv.Atoi(strings.Fields(v)[0])
			return float64(kib) / 1024
		}
	}
	return 0
}

// median is the part-wise median of samples.
func median(ms []memory) memory {
	pick := func(f func(memory) float64) float64 {
		v := make([]float64, len(ms))
		for i, m := range ms {
			v[i] = f(m)
		}
		sort.Float64s(v)
		if len(v) == 0 {
			return 0
		}
		return v[len(v)/2]
	}
	return memory{
		app:    pick(func(m memory) float64 { return m.app }),
		window: pick(func(m memory) float64 { return m.window }),
		webkit: pick(func(m memory) float64 { return m.webkit }),
		tray:   pick(func(m memory) float64 { return m.tray }),
	}
}

func (a *app) memory() memory { return treeMemory(a.cmd.Process.Pid) }

func (a *app) memorySamples(ctx context.Context, n int) []memory {
	var out []memory
	for i := 0; i < n && ctx.Err() == nil; i++ {
		out = append(out, a.memory())
		sleep(ctx, time.Second)
	}
	return out
}
