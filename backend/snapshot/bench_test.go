package snapshot

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchWorkspace builds n small files, 20 per directory.
func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	ws := b.TempDir()
	for i := range n {
		p := filepath.Join(ws, fmt.Sprintf("d%02d/e%03d/f%d.txt", i/2000, i/20%100, i))
		if i%20 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

func BenchmarkCheckpointNoChange(b *testing.B) {
	ws := benchWorkspace(b, 20000)
	s, err := Open(b.TempDir(), Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := b.Context()
	req := Request{Session: "b", CallID: "c", Phase: Pre, Roots: []string{ws}}
	if _, err := s.Checkpoint(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Checkpoint(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewSessionBase: a new session's first checkpoint finding its
// base among the 50,000 of a daemon's history (weeks of calls).
func BenchmarkNewSessionBase(b *testing.B) {
	ix := &index{byID: map[string]*Checkpoint{}, bySession: map[string][]*Checkpoint{},
		newest: map[string]*Checkpoint{}, stale: map[string]bool{}}
	start := time.Now()
	for i := range 50000 {
		ix.apply(logLine{Checkpoint: &Checkpoint{
			ID: fmt.Sprintf("cp%d", i), Session: fmt.Sprintf("s%d", i/10), Time: start.Add(time.Duration(i)),
			Roots: []RootTree{{Root: fmt.Sprintf("/home/me/p%d", i%7)}},
		}})
	}
	b.ResetTimer()
	for b.Loop() {
		if _, ok := ix.latestTree("new", "/home/me/p3"); !ok {
			b.Fatal("no base")
		}
	}
}

// BenchmarkOpenIndex: a daemon's start reading the checkpoint logs of
// 2,000 sessions.
func BenchmarkOpenIndex(b *testing.B) {
	dir := b.TempDir()
	ix, err := openIndex(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		s := fmt.Sprintf("s%d", i)
		for phase, p := range []Phase{Pre, Post} {
			cp := &Checkpoint{ID: fmt.Sprintf("cp%d-%d", i, phase), Session: s, Phase: p, Time: time.Now(),
				Roots: []RootTree{{Root: "/home/me/project"}}}
			if err := ix.append(s, logLine{Checkpoint: cp}); err != nil {
				b.Fatal(err)
			}
		}
	}
	ix.close()
	for b.Loop() {
		ix, err := openIndex(dir, slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		ix.close()
	}
}
