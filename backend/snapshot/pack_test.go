package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func textBytes(n int, seed uint64) []byte {
	words := strings.Fields("func return if else for range package import type struct value result the of to")
	r := rand.New(rand.NewPCG(seed, 2))
	var b []byte
	for len(b) < n {
		b = append(b, words[r.IntN(len(words))]...)
		b = append(b, ' ')
	}
	return b[:n]
}

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func openTestObjects(t *testing.T, dir string) *objects {
	t.Helper()
	o, err := openObjects(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open objects: %v", err)
	}
	t.Cleanup(o.close)
	return o
}

// TestPackRoundTrip writes objects of every kind the writer distinguishes
// into one pack and reads them back, before and after a reopen.
func TestPackRoundTrip(t *testing.T) {
	cases := []struct {
		name    string
		data    []byte
		tree    bool
		wantEnc byte
	}{
		{"empty", nil, false, encBlock},
		{"tiny", []byte("x"), false, encBlock},
		{"small text", textBytes(3000, 1), false, encBlock},
		{"small text 2", textBytes(5000, 2), false, encBlock},
		{"small random", randBytes(3000, 3), false, encRaw},
		{"just below alone", textBytes(blockObjMax-1, 4), false, encBlock},
		{"alone text", textBytes(blockObjMax, 5), false, encZstd},
		{"alone random", randBytes(blockObjMax+10, 6), false, encRaw},
		{"big text", textBytes(3*blockSize, 7), false, encZstd},
		{"tree", encodeTree([]Entry{{Name: "a", Kind: KindFile, Perm: 0o644, Size: 1}}), true, encRaw}, // too small to compress, never in a block
	}
	// Enough filler that blocks fill and close while the batch runs.
	var filler [][]byte
	for i := range 100 {
		filler = append(filler, textBytes(2000+i, uint64(100+i)), randBytes(1500+i, uint64(300+i)))
	}
	dir := t.TempDir()
	o := openTestObjects(t, dir)
	b := o.newBatch()
	put := func(data []byte, tree bool) Hash {
		h := hashBytes(data)
		var err error
		if tree {
			err = b.putTree(h, data)
		} else {
			err = b.put(h, data)
		}
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, f := range filler {
		put(f, false)
	}
	hashes := make([]Hash, len(cases))
	for i, tc := range cases {
		hashes[i] = put(tc.data, tc.tree)
	}
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
	check := func(o *objects) {
		for i, tc := range cases {
			got, err := o.get(hashes[i])
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !bytes.Equal(got, tc.data) {
				t.Fatalf("%s: read back %d bytes, want %d", tc.name, len(got), len(tc.data))
			}
			if l, _ := o.loc(hashes[i]); l.enc != tc.wantEnc {
				t.Errorf("%s: stored as encoding %d, want %d", tc.name, l.enc, tc.wantEnc)
			}
		}
		for _, f := range filler {
			if got, err := o.get(hashBytes(f)); err != nil || !bytes.Equal(got, f) {
				t.Fatalf("filler: %v", err)
			}
		}
	}
	check(o)
	o.close()
	check(openTestObjects(t, dir))
}

// writeV1Pack writes a pack and index the way version 1 did.
func writeV1Pack(t *testing.T, dir string, id uint32, objs [][]byte, c *codec) {
	t.Helper()
	pack := []byte(packMagicV1)
	idx := []byte(idxMagicV1)
	for _, raw := range objs {
		h := hashBytes(raw)
		stored, enc := c.pack(raw)
		pack = append(pack, h[:]...)
		pack = append(pack, enc)
		pack = binary.AppendUvarint(pack, uint64(len(raw)))
		pack = binary.AppendUvarint(pack, uint64(len(stored)))
		off := len(pack)
		pack = append(pack, stored...)
		idx = append(idx, h[:]...)
		idx = append(idx, enc)
		idx = binary.AppendUvarint(idx, uint64(off))
		idx = binary.AppendUvarint(idx, uint64(len(stored)))
		idx = binary.AppendUvarint(idx, uint64(len(raw)))
	}
	sum := hashBytes(idx)
	idx = append(idx, sum[:]...)
	must(t, os.MkdirAll(filepath.Join(dir, "packs"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "packs", fmt.Sprintf("p-%08d.pack", id)), pack, 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "packs", fmt.Sprintf("p-%08d.idx", id)), idx, 0o600))
}

func TestPackV1StillReadable(t *testing.T) {
	dir := t.TempDir()
	c, err := newCodec()
	must(t, err)
	defer c.close()
	old := [][]byte{textBytes(4000, 1), randBytes(2000, 2), []byte("hi")}
	writeV1Pack(t, dir, 1, old, c)
	o := openTestObjects(t, dir)
	for _, raw := range old {
		got, err := o.get(hashBytes(raw))
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("v1 object: %v", err)
		}
	}
	// New objects go to a new version 2 pack next to it.
	b := o.newBatch()
	fresh := textBytes(3000, 9)
	must(t, b.put(hashBytes(fresh), fresh))
	must(t, b.commit())
	o.close()
	o = openTestObjects(t, dir)
	for _, raw := range append(old, fresh) {
		if got, err := o.get(hashBytes(raw)); err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("after reopen: %v", err)
		}
	}
}

// TestPackDamage checks that a damaged or half-written pack never yields
// wrong bytes: objects read back intact, or fail with a typed error.
func TestPackDamage(t *testing.T) {
	small := [][]byte{textBytes(3000, 1), textBytes(4000, 2), textBytes(2500, 3)}
	alone := textBytes(blockObjMax*2, 4)
	all := append(append([][]byte{}, small...), alone)
	write := func(t *testing.T) (string, uint32) {
		dir := t.TempDir()
		o, err := openObjects(dir, slog.New(slog.DiscardHandler))
		must(t, err)
		defer o.close()
		b := o.newBatch()
		for _, raw := range all {
			must(t, b.put(hashBytes(raw), raw))
		}
		must(t, b.commit())
		return dir, b.id
	}
	packPath := func(dir string, id uint32, ext string) string {
		return filepath.Join(dir, "packs", fmt.Sprintf("p-%08d.%s", id, ext))
	}
	cases := []struct {
		name     string
		damage   func(t *testing.T, dir string, id uint32)
		openErr  bool // Open refuses the store
		gone     bool // objects are simply absent (uncommitted)
		readFail bool // some reads fail (typed), none returns wrong data
	}{
		{"intact", func(*testing.T, string, uint32) {}, false, false, false},
		{"crash before index", func(t *testing.T, dir string, id uint32) {
			must(t, os.Remove(packPath(dir, id, "idx")))
		}, false, true, false},
		{"leftover temp index", func(t *testing.T, dir string, id uint32) {
			must(t, os.WriteFile(packPath(dir, id+1, "idx.tmp"), []byte("torn"), 0o600))
		}, false, false, false},
		{"bit flip in block", func(t *testing.T, dir string, id uint32) {
			flipAt(t, packPath(dir, id, "pack"), len(packMagic)+40)
		}, false, false, true},
		{"bit flip at end", func(t *testing.T, dir string, id uint32) {
			flipAt(t, packPath(dir, id, "pack"), -10)
		}, false, false, true},
		{"pack truncated", func(t *testing.T, dir string, id uint32) {
			p := packPath(dir, id, "pack")
			st, err := os.Stat(p)
			must(t, err)
			must(t, os.Truncate(p, st.Size()/2))
		}, false, false, true},
		{"index bit flip", func(t *testing.T, dir string, id uint32) {
			flipAt(t, packPath(dir, id, "idx"), 20)
		}, true, false, false},
		{"index truncated", func(t *testing.T, dir string, id uint32) {
			p := packPath(dir, id, "idx")
			st, err := os.Stat(p)
			must(t, err)
			must(t, os.Truncate(p, st.Size()-1))
		}, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, id := write(t)
			tc.damage(t, dir, id)
			o, err := openObjects(dir, slog.New(slog.DiscardHandler))
			if tc.openErr {
				if !errors.Is(err, ErrCorruptObject) {
					t.Fatalf("open: %v, want ErrCorruptObject", err)
				}
				return
			}
			must(t, err)
			defer o.close()
			failed := 0
			for _, raw := range all {
				got, err := o.get(hashBytes(raw))
				var miss *MissingObjectError
				switch {
				case err == nil:
					if !bytes.Equal(got, raw) {
						t.Fatal("wrong bytes returned without an error")
					}
				case tc.gone && errors.As(err, &miss):
					failed++
				case tc.readFail && (errors.Is(err, ErrCorruptObject) || errors.As(err, &miss)):
					failed++
				default:
					t.Fatalf("unexpected error: %v", err)
				}
			}
			if tc.gone && failed != len(all) {
				t.Fatalf("%d of %d objects of an uncommitted pack visible", len(all)-failed, len(all))
			}
			if tc.readFail && failed == 0 {
				t.Fatal("damage went unnoticed")
			}
			if !tc.gone && !tc.readFail && failed != 0 {
				t.Fatalf("%d objects unreadable", failed)
			}
			if tc.gone {
				if _, err := os.Stat(packPath(dir, id, "pack")); !os.IsNotExist(err) {
					t.Fatalf("uncommitted pack not removed: %v", err)
				}
			}
		})
	}
}

func flipAt(t *testing.T, path string, at int) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	if at < 0 {
		at += len(data)
	}
	data[at] ^= 0x40
	must(t, os.WriteFile(path, data, 0o600))
}

// A prune that drops some objects of a block moves the live ones into a new
// block; they stay readable and the dead ones go.
func TestSweepRepacksBlocks(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, Options{BudgetBytes: -1})
	o := s.objs
	var objs [][]byte
	for i := range 40 {
		objs = append(objs, textBytes(3000+i, uint64(i)))
	}
	b := o.newBatch()
	for _, raw := range objs {
		must(t, b.put(hashBytes(raw), raw))
	}
	must(t, b.commit())
	live := map[Hash]bool{}
	for i, raw := range objs {
		if i%2 == 0 {
			live[hashBytes(raw)] = true
		}
	}
	before := o.totalBytes()
	if _, err := s.sweep(live); err != nil {
		t.Fatal(err)
	}
	if after := o.totalBytes(); after >= before {
		t.Fatalf("sweep freed nothing: %d -> %d bytes", before, after)
	}
	for i, raw := range objs {
		got, err := o.get(hashBytes(raw))
		if i%2 == 0 {
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("live object %d: %v", i, err)
			}
			if l, _ := o.loc(hashBytes(raw)); l.enc != encBlock || l.size() <= 0 || l.size() >= l.stored {
				t.Fatalf("live object %d not in a shared block: %+v", i, l)
			}
		} else if err == nil {
			t.Fatalf("dead object %d still readable", i)
		}
	}
	s.Close()
	s = openStore(t, dir, Options{BudgetBytes: -1})
	for raw := range live {
		if _, err := s.objs.get(raw); err != nil {
			t.Fatalf("after reopen: %v", err)
		}
	}
}

// Plan previews are computed in parallel and read blobs out of shared
// blocks; every item must still carry its own diff.
func TestPlanItemsCarryDiffs(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	s := openStore(t, data, Options{})
	pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	for i := range 20 {
		writeFile(t, ws, fmt.Sprintf("src/pkg%d/file%d.go", i%4, i), fmt.Sprintf("package p\n\nconst N%d = %d\n", i, 1000+i), 0o644)
	}
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	p, err := s.Plan(t.Context(), RollbackRequest{Session: "s", To: pre.ID})
	must(t, err)
	if len(p.Items) != 20 {
		t.Fatalf("%d items, want 20", len(p.Items))
	}
	for _, it := range p.Items {
		var i int
		fmt.Sscanf(filepath.Base(it.Path), "file%d.go", &i)
		want := fmt.Sprintf("-const N%d = %d\n+const N%d = %d\n", i, 1000+i, i, i)
		if !strings.Contains(it.Diff, want) {
			t.Fatalf("%s: diff %q lacks %q", it.Path, it.Diff, want)
		}
	}
}
