package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fsState describes a directory byte for byte: type, permission bits and
// content (or link target) of every path under it.
type fsState map[string]string

func readState(t testing.TB, root string) fsState {
	t.Helper()
	st := fsState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		perm := uint32(info.Mode().Perm())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			st[rel] = "link -> " + target
		case info.IsDir():
			st[rel] = fmt.Sprintf("dir %04o", perm)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			st[rel] = fmt.Sprintf("file %04o %d %s", perm, len(data), hex.EncodeToString(sum[:8]))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read workspace: %v", err)
	}
	return st
}

// diffState explains how two states differ ("" when equal).
func diffState(want, got fsState) string {
	var out []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			out = append(out, "missing "+k+" ("+v+")")
		} else if g != v {
			out = append(out, fmt.Sprintf("differs %s: want %s, got %s", k, v, g))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			out = append(out, "extra "+k+" ("+v+")")
		}
	}
	sort.Strings(out)
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("... and %d more", len(out)-20))
	}
	return strings.Join(out, "\n")
}

func writeFile(t testing.TB, root, rel, content string, perm os.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
}

func openStore(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts, nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// seededStore is a seeded workspace and a store in a data dir of its own.
func seededStore(t testing.TB) (ws string, s *Store) {
	t.Helper()
	ws = t.TempDir()
	seedWorkspace(t, ws)
	return ws, openStore(t, t.TempDir(), Options{})
}

func mustCheckpoint(t testing.TB, s *Store, req Request) Checkpoint {
	t.Helper()
	cp, err := s.Checkpoint(t.Context(), req)
	if err != nil {
		t.Fatalf("checkpoint %s/%s: %v", req.CallID, req.Phase, err)
	}
	return cp
}

// rollbackTo plans and applies a rollback, failing the test on error.
func rollbackTo(t testing.TB, s *Store, req RollbackRequest) (*Plan, Result) {
	t.Helper()
	ctx := t.Context()
	p, err := s.Plan(ctx, req)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	res, err := s.Apply(ctx, p)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return p, res
}

// seedWorkspace builds a small but varied workspace.
func seedWorkspace(t testing.TB, root string) {
	t.Helper()
	writeFile(t, root, "README.md", "# demo\n\nline two\n", 0o644)
	writeFile(t, root, "run.sh", "#!/bin/sh\necho hi\n", 0o755)
	for i := range 20 {
		writeFile(t, root, fmt.Sprintf("src/pkg%d/file%d.go", i%4, i), fmt.Sprintf("package p\n\nconst N%d = %d\n", i, i), 0o644)
	}
	bin := make([]byte, 5000)
	for i := range bin {
		bin[i] = byte(i * 7 % 256)
	}
	writeFile(t, root, "assets/blob.bin", string(bin), 0o600)
	if err := os.MkdirAll(filepath.Join(root, "empty/nested"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README.md", filepath.Join(root, "link-to-readme")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent/target", filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
}

// noiseFrom returns a maker of incompressible content, the same for a
// seed on every run: a checkpoint stores it at its full size.
func noiseFrom(seed uint32) func(n int) string {
	rnd := seed
	return func(n int) string {
		b := make([]byte, n)
		for i := range b {
			rnd = rnd*1664525 + 1013904223
			b[i] = byte(rnd >> 24)
		}
		return string(b)
	}
}
