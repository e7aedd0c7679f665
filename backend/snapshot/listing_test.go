package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/sharedfs"
)

// A directory whose stat is unchanged is not listed again; these cases
// change the entries of directories and check every change is recorded,
// whether the checkpoint runs at once or after the clock has moved on.
func TestCachedListingCatchesEntryChanges(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, ws string)
	}{
		{"create file", func(t *testing.T, ws string) { writeFile(t, ws, "src/pkg0/new.go", "package p\n", 0o644) }},
		{"delete file", func(t *testing.T, ws string) { must(t, os.Remove(filepath.Join(ws, "src/pkg0/file0.go"))) }},
		{"rename in dir", func(t *testing.T, ws string) {
			must(t, os.Rename(filepath.Join(ws, "src/pkg0/file0.go"), filepath.Join(ws, "src/pkg0/zz.go")))
		}},
		{"move across dirs", func(t *testing.T, ws string) {
			must(t, os.Rename(filepath.Join(ws, "src/pkg0/file0.go"), filepath.Join(ws, "src/pkg1/file0.go")))
		}},
		{"rename over existing", func(t *testing.T, ws string) {
			writeFile(t, ws, "src/pkg2/.tmp", "package p // saved\n", 0o644)
			must(t, os.Rename(filepath.Join(ws, "src/pkg2/.tmp"), filepath.Join(ws, "src/pkg2/file2.go")))
		}},
		{"hard link", func(t *testing.T, ws string) {
			must(t, os.Link(filepath.Join(ws, "README.md"), filepath.Join(ws, "src/pkg3/readme-link")))
		}},
		{"mkdir", func(t *testing.T, ws string) { must(t, os.Mkdir(filepath.Join(ws, "empty/nested/deeper"), 0o755)) }},
		{"rmdir", func(t *testing.T, ws string) { must(t, os.Remove(filepath.Join(ws, "empty/nested"))) }},
		{"file becomes dir", func(t *testing.T, ws string) {
			p := filepath.Join(ws, "src/pkg1/file1.go")
			must(t, os.Remove(p))
			writeFile(t, ws, "src/pkg1/file1.go/inside", "x", 0o644)
		}},
		{"symlink added", func(t *testing.T, ws string) {
			must(t, os.Symlink("../README.md", filepath.Join(ws, "src/readme")))
		}},
		{"content only", func(t *testing.T, ws string) { writeFile(t, ws, "src/pkg0/file4.go", "package changed\n", 0o644) }},
	}
	for _, settle := range []bool{false, true} {
		for _, tc := range cases {
			name := tc.name
			if settle {
				name += " settled"
			}
			t.Run(name, func(t *testing.T) {
				ws, data := t.TempDir(), t.TempDir()
				seedWorkspace(t, ws)
				waitCtimeSettled(t, data, ws)
				s := openStore(t, data, Options{})
				req := Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}}
				mustCheckpoint(t, s, req)
				before := s.listed.Load()
				mustCheckpoint(t, s, req)
				if n := s.listed.Load() - before; n != 0 {
					t.Fatalf("unchanged checkpoint listed %d directories", n)
				}
				tc.mutate(t, ws)
				if settle {
					waitCtimeSettled(t, data, ws)
				}
				want := readState(t, ws)
				cp := mustCheckpoint(t, s, req)
				// Wipe the workspace and restore cp: it must be the mutated state.
				ents, err := os.ReadDir(ws)
				must(t, err)
				for _, e := range ents {
					must(t, os.RemoveAll(filepath.Join(ws, e.Name())))
				}
				mustCheckpoint(t, s, Request{Session: "s", CallID: "wipe", Phase: Post, Roots: []string{ws}})
				rollbackTo(t, s, RollbackRequest{Session: "s", To: cp.ID})
				if d := diffState(want, readState(t, ws)); d != "" {
					t.Fatalf("checkpoint after %s missed changes:\n%s", tc.name, d)
				}
			})
		}
	}
}

// A listing cached under other exclude patterns lacks what they excluded,
// so it must not be trusted once the patterns change.
func TestCachedListingDistrustedWhenExcludesChange(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	waitCtimeSettled(t, data, ws)
	req := Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}}
	s := openStore(t, data, Options{Exclude: []string{"*.md"}})
	mustCheckpoint(t, s, req)
	cp := mustCheckpoint(t, s, req)
	if hasEntry(t, s, cp.Roots[0].Tree, "README.md") {
		t.Fatal("excluded file recorded")
	}
	s.Close()
	s2 := openStore(t, data, Options{})
	cp = mustCheckpoint(t, s2, req)
	if !hasEntry(t, s2, cp.Roots[0].Tree, "README.md") {
		t.Fatal("file no longer excluded is missing: a listing cached under the old patterns was trusted")
	}
}

func hasEntry(t *testing.T, s *Store, tree Hash, name string) bool {
	t.Helper()
	es, err := s.readTree(tree)
	must(t, err)
	_, ok := findEntry(es, name)
	return ok
}

func TestStatCacheFormat(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	waitCtimeSettled(t, data, ws)
	s := openStore(t, data, Options{})
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	s.flushCaches()
	path := s.cachePath(ws)
	good, err := os.ReadFile(path)
	must(t, err)
	print := s.scanPrint()
	dirsTrusted := func(n *node) bool {
		trusted := true
		var walk func(n *node)
		walk = func(n *node) {
			if n.e.Kind == KindDir && n.racy {
				trusted = false
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
		walk(n)
		return trusted
	}
	v1 := append([]byte(statMagicV1), good[len(statMagic)+32:len(good)-32]...)
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 1
	cases := []struct {
		name    string
		data    []byte
		print   Hash
		wantErr bool
		trusted bool
	}{
		{"intact", good, print, false, true},
		{"other fingerprint", good, hashBytes([]byte("other")), false, false},
		{"version 1", v1, print, false, false},
		{"bit flip", flipped, print, true, false},
		{"truncated", good[:len(good)-7], print, true, false},
		{"empty", nil, print, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "c.stat")
			must(t, os.WriteFile(p, tc.data, 0o600))
			n, err := readStatCache(p, tc.print)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && dirsTrusted(n) != tc.trusted {
				t.Fatalf("directory listings trusted = %v, want %v", !tc.trusted, tc.trusted)
			}
		})
	}
}

// On a network or FUSE filesystem every directory is listed again, even
// when its stat is unchanged.
func TestSharedFilesystemListsEveryDirectory(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	waitCtimeSettled(t, data, ws)
	s := openStore(t, data, Options{})
	if sharedfs.FD(int(mustOpenDir(t, ws).Fd())) {
		t.Fatalf("the test's temp dir %s counts as a shared filesystem", ws)
	}
	s.sharedFS = func(int) bool { return true }
	req := Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}}
	mustCheckpoint(t, s, req)
	before := s.listed.Load()
	mustCheckpoint(t, s, req)
	if n := s.listed.Load() - before; n == 0 {
		t.Fatal("an unchanged checkpoint on a shared filesystem trusted cached listings")
	}
}

func mustOpenDir(t *testing.T, dir string) *os.File {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
