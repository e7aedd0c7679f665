package pack

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

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func openTestStore(t *testing.T, dir string) *Store {
	t.Helper()
	o, err := Open(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open objects: %v", err)
	}
	t.Cleanup(o.Close)
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
		{"tree", []byte("040755 a\x00"), true, encRaw}, // too small to compress, never in a block
	}
	// Enough filler that blocks fill and close while the batch runs.
	var filler [][]byte
	for i := range 100 {
		filler = append(filler, textBytes(2000+i, uint64(100+i)), randBytes(1500+i, uint64(300+i)))
	}
	dir := t.TempDir()
	o := openTestStore(t, dir)
	b := o.NewBatch()
	put := func(data []byte, tree bool) Key {
		h := sum(data)
		var err error
		if tree {
			err = b.PutTree(h, data)
		} else {
			err = b.Put(h, data)
		}
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, f := range filler {
		put(f, false)
	}
	hashes := make([]Key, len(cases))
	for i, tc := range cases {
		hashes[i] = put(tc.data, tc.tree)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	check := func(o *Store) {
		for i, tc := range cases {
			got, err := o.Get(hashes[i])
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
			if got, err := o.Get(sum(f)); err != nil || !bytes.Equal(got, f) {
				t.Fatalf("filler: %v", err)
			}
		}
	}
	check(o)
	o.Close()
	check(openTestStore(t, dir))
}

// writeV1Pack writes a pack and index the way version 1 did.
func writeV1Pack(t *testing.T, dir string, id uint32, objs [][]byte, c *codec) {
	t.Helper()
	pack := []byte(packMagicV1)
	idx := []byte(idxMagicV1)
	for _, raw := range objs {
		h := sum(raw)
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
	sum := sum(idx)
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
	o := openTestStore(t, dir)
	for _, raw := range old {
		got, err := o.Get(sum(raw))
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("v1 object: %v", err)
		}
	}
	// New objects go to a new version 2 pack next to it.
	b := o.NewBatch()
	fresh := textBytes(3000, 9)
	must(t, b.Put(sum(fresh), fresh))
	must(t, b.Commit())
	o.Close()
	o = openTestStore(t, dir)
	for _, raw := range append(old, fresh) {
		if got, err := o.Get(sum(raw)); err != nil || !bytes.Equal(got, raw) {
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
		o, err := Open(dir, slog.New(slog.DiscardHandler))
		must(t, err)
		defer o.Close()
		b := o.NewBatch()
		for _, raw := range all {
			must(t, b.Put(sum(raw), raw))
		}
		must(t, b.Commit())
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
			o, err := Open(dir, slog.New(slog.DiscardHandler))
			if tc.openErr {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("open: %v, want ErrCorrupt", err)
				}
				return
			}
			must(t, err)
			defer o.Close()
			failed := 0
			for _, raw := range all {
				got, err := o.Get(sum(raw))
				var miss *MissingError
				switch {
				case err == nil:
					if !bytes.Equal(got, raw) {
						t.Fatal("wrong bytes returned without an error")
					}
				case tc.gone && errors.As(err, &miss):
					failed++
				case tc.readFail && (errors.Is(err, ErrCorrupt) || errors.As(err, &miss)):
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
	o, err := Open(dir, slog.New(slog.DiscardHandler))
	must(t, err)
	var objs [][]byte
	for i := range 40 {
		objs = append(objs, textBytes(3000+i, uint64(i)))
	}
	b := o.NewBatch()
	for _, raw := range objs {
		must(t, b.Put(sum(raw), raw))
	}
	must(t, b.Commit())
	live := map[Key]bool{}
	for i, raw := range objs {
		if i%2 == 0 {
			live[sum(raw)] = true
		}
	}
	before := o.TotalBytes()
	if _, err := o.Sweep(func(h Key) bool { return live[h] }); err != nil {
		t.Fatal(err)
	}
	if after := o.TotalBytes(); after >= before {
		t.Fatalf("sweep freed nothing: %d -> %d bytes", before, after)
	}
	for i, raw := range objs {
		got, err := o.Get(sum(raw))
		if i%2 == 0 {
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("live object %d: %v", i, err)
			}
			if l, _ := o.loc(sum(raw)); l.enc != encBlock || l.size() <= 0 || l.size() >= l.stored {
				t.Fatalf("live object %d not in a shared block: %+v", i, l)
			}
		} else if err == nil {
			t.Fatalf("dead object %d still readable", i)
		}
	}
	o.Close()
	o = openTestStore(t, dir)
	for h := range live {
		if _, err := o.Get(h); err != nil {
			t.Fatalf("after reopen: %v", err)
		}
	}
}
