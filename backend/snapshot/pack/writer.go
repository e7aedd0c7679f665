package pack

import (
	"bufio"
	"os"
	"path/filepath"
	"sync"

	"github.com/klauspost/compress"
)

// Batch collects the new objects of one checkpoint into one pack, made
// durable by a single commit. Its methods are safe for concurrent use: the
// scanner's workers put into it in parallel.
type Batch struct {
	o *Store

	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	id    uint32
	off   int64
	recs  []idxRec
	ents  []batchEnt
	seen  map[Key]struct{}
	loose []Key
	err   error
	// Open blocks of small blobs: compressible ones, and ones stored raw
	// (random data would only dilute a compressed block).
	zblk, rblk pending

	newObjects int
	newBytes   int64
}

// pending is a block being filled.
type pending struct {
	data []byte
	objs []batchEnt // rec unset until written
}

// NewBatch starts a batch; end it with Commit or Abort.
func (o *Store) NewBatch() *Batch { return &Batch{o: o, seen: map[Key]struct{}{}} }

// Written reports what the batch added: objects and their stored bytes.
func (b *Batch) Written() (objects int, bytes int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.newObjects, b.newBytes
}

// claim marks h as being written; false means someone already has it.
func (b *Batch) claim(h Key) bool {
	if b.o.Has(h) {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.seen[h]; ok {
		return false
	}
	b.seen[h] = struct{}{}
	return true
}

// Put stores a blob (file content or link target) under its key h
// (computed by the caller).
func (b *Batch) Put(h Key, raw []byte) error {
	if !b.claim(h) {
		return nil
	}
	return b.addBlob(h, raw)
}

// PutTree stores a tree object. Trees are compressed alone: a plan reads
// them one by one and should not decode a block for each.
func (b *Batch) PutTree(h Key, raw []byte) error {
	if !b.claim(h) {
		return nil
	}
	return b.putAlone(h, raw)
}

func (b *Batch) putAlone(h Key, raw []byte) error {
	stored, enc := b.o.codec.pack(raw)
	return b.writeRec(enc, int64(len(raw)), stored, []batchEnt{{h: h, raw: int64(len(raw))}})
}

// addBlob writes a claimed blob: alone if big, else into an open block,
// which is compressed and written once full (by whichever worker fills it,
// so compression stays parallel).
func (b *Batch) addBlob(h Key, raw []byte) error {
	if len(raw) >= blockObjMax {
		return b.putAlone(h, raw)
	}
	incompressible := len(raw) >= 256 && compress.Estimate(raw[:min(len(raw), 4096)]) < 0.1
	b.mu.Lock()
	blk := &b.zblk
	if incompressible {
		blk = &b.rblk
	}
	if blk.data == nil {
		blk.data = make([]byte, 0, blockSize+blockObjMax)
	}
	blk.objs = append(blk.objs, batchEnt{h: h, inner: int64(len(blk.data)), raw: int64(len(raw))})
	blk.data = append(blk.data, raw...)
	if len(blk.data) < blockSize {
		b.mu.Unlock()
		return nil
	}
	full := *blk
	*blk = pending{}
	b.mu.Unlock()
	return b.writeBlock(full, !incompressible)
}

func (b *Batch) writeBlock(p pending, compressible bool) error {
	if len(p.objs) == 0 {
		return nil
	}
	stored, enc := p.data, encRaw
	if compressible {
		stored, enc = b.o.codec.pack(p.data)
	}
	return b.writeRec(enc, int64(len(p.data)), stored, p.objs)
}

// putStored copies an object stored alone, bytes unchanged (repacking).
func (b *Batch) putStored(h Key, l loc, stored []byte) error {
	b.mu.Lock()
	b.seen[h] = struct{}{}
	b.mu.Unlock()
	return b.writeRec(l.enc, l.raw, stored, []batchEnt{{h: h, raw: l.raw}})
}

// putAgain re-adds an object the store already has (repacking a block).
func (b *Batch) putAgain(h Key, raw []byte) error {
	b.mu.Lock()
	b.seen[h] = struct{}{}
	b.mu.Unlock()
	return b.addBlob(h, raw)
}

// writeRec appends one record holding objs.
func (b *Batch) writeRec(enc byte, rawLen int64, stored []byte, objs []batchEnt) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	if b.f == nil {
		b.id = b.o.allocPack()
		f, err := os.OpenFile(b.o.packPath(b.id, "pack"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			b.err = ClassifyIO("create snapshot pack", err)
			return b.err
		}
		b.f, b.w = f, bufio.NewWriterSize(f, 1<<20)
		b.w.WriteString(packMagic)
		b.off = int64(len(packMagic))
	}
	if _, err := b.w.Write(stored); err != nil {
		b.err = ClassifyIO("write snapshot pack", err)
		return b.err
	}
	rec := len(b.recs)
	b.recs = append(b.recs, idxRec{enc: enc, off: b.off, stored: int64(len(stored)), raw: rawLen})
	for _, e := range objs {
		e.rec = rec
		b.ents = append(b.ents, e)
	}
	b.off += int64(len(stored))
	b.newObjects += len(objs)
	b.newBytes += int64(len(stored))
	return nil
}

// addLoose records a durable loose object written by the caller.
func (b *Batch) addLoose(h Key, size int64) {
	b.mu.Lock()
	b.loose = append(b.loose, h)
	b.newObjects++
	b.newBytes += size
	b.mu.Unlock()
}

// Commit makes the batch durable (pack, then its index, then the directory
// entries) and publishes the objects. Nothing may refer to them before.
func (b *Batch) Commit() error {
	b.mu.Lock()
	z, r := b.zblk, b.rblk
	b.zblk, b.rblk = pending{}, pending{}
	b.mu.Unlock()
	if err := b.writeBlock(z, true); err != nil {
		b.Abort()
		return err
	}
	if err := b.writeBlock(r, false); err != nil {
		b.Abort()
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		b.abortLocked()
		return b.err
	}
	o := b.o
	var ents []idxEnt
	if b.f != nil {
		err := b.w.Flush()
		if err == nil {
			err = b.f.Sync()
		}
		if cerr := b.f.Close(); err == nil {
			err = cerr
		}
		b.f = nil
		var idx []byte
		if err == nil {
			idx = encodeIdx(b.recs, b.ents)
			// Publish exactly what a reopen would load.
			ents, err = parseIdx(idx[len(idxMagic) : len(idx)-32])
		}
		if err == nil {
			err = WriteFileSync(o.packPath(b.id, "idx"), idx)
		}
		if err == nil {
			err = SyncDir(o.packDir())
		}
		if err != nil {
			b.err = ClassifyIO("write snapshot pack", err)
			b.abortLocked()
			return b.err
		}
	}
	dirs := map[string]bool{}
	for _, h := range b.loose {
		dirs[filepath.Dir(o.loosePath(h))] = true
	}
	for d := range dirs {
		if err := SyncDir(d); err != nil {
			return ClassifyIO("sync snapshot store", err)
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(ents) > 0 {
		o.packs[b.id] = &packInfo{size: b.off, count: len(ents)}
		for _, e := range ents {
			e.loc.pack = b.id
			o.locs[e.h] = e.loc
		}
	}
	for _, h := range b.loose {
		if st, err := os.Stat(o.loosePath(h)); err == nil {
			o.locs[h] = loc{pack: 0, enc: encRaw, stored: st.Size(), raw: st.Size()}
			o.looseBytes += st.Size()
		}
	}
	return nil
}

// Abort drops an unfinished batch; loose objects already renamed into place
// stay (they are valid and the next GC removes them if unused).
func (b *Batch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.abortLocked()
}

func (b *Batch) abortLocked() {
	if b.f != nil {
		_ = b.f.Close()
		b.f = nil
	}
	if b.id != 0 {
		_ = os.Remove(b.o.packPath(b.id, "pack"))
		_ = os.Remove(b.o.packPath(b.id, "idx"))
		b.id = 0
	}
	b.ents, b.recs = nil, nil
	b.zblk, b.rblk = pending{}, pending{}
}
