package snapshot

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress"
)

// objLoc says where an object's bytes live. For encBlock, off and stored
// are those of the whole shared block, and the object is raw bytes at inner
// in the decoded block.
type objLoc struct {
	pack   uint32 // 0 = loose file
	enc    byte
	off    int64
	stored int64
	raw    int64
	inner  int64 // encBlock only
	braw   int64 // encBlock only: the decoded block's length
}

// size is the disk space the object accounts for: its share of a block.
func (l objLoc) size() int64 {
	if l.enc == encBlock && l.braw > 0 {
		return l.stored * l.raw / l.braw
	}
	return l.stored
}

type packInfo struct {
	size  int64
	count int
	f     *os.File // opened on first read
}

// objects is the content-addressed store: packs plus loose reflinked files.
type objects struct {
	dir   string
	log   *slog.Logger
	codec *codec

	mu         sync.RWMutex
	locs       map[Hash]objLoc
	packs      map[uint32]*packInfo
	nextPack   uint32
	looseBytes int64

	reflinkBroken atomic.Bool // set after the first clone the filesystem refuses

	blocks blockCache
}

// Pack format. Version 1: per object a header (hash, encoding, lengths)
// then its bytes, each object compressed alone. Version 2: records with no
// headers (the index has everything); a record is one object, or a block of
// small blobs compressed together so they share zstd's window and tables
// (what git gets from delta and pack compression). Both stay readable; new
// packs are version 2.
const (
	packMagicV1 = "ghpack1\n"
	idxMagicV1  = "ghidx1\n"
	packMagic   = "ghpack2\n"
	idxMagic    = "ghidx2\n"
)

// blockSize is the raw size at which a block of small blobs is closed.
// Rollback decodes a whole block to get one file: 128 KiB decodes in well
// under a millisecond and keeps most of the gain of larger blocks.
const (
	blockSize   = 128 << 10
	blockObjMax = blockSize / 2 // bigger blobs are compressed alone
)

func openObjects(dir string, log *slog.Logger) (*objects, error) {
	c, err := newCodec()
	if err != nil {
		return nil, err
	}
	o := &objects{dir: dir, log: log, codec: c, locs: map[Hash]objLoc{}, packs: map[uint32]*packInfo{}, nextPack: 1}
	for _, d := range []string{o.packDir(), o.looseDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, classifyIO("create snapshot store", err)
		}
	}
	if err := o.loadPacks(); err != nil {
		return nil, err
	}
	if err := o.loadLoose(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *objects) packDir() string  { return filepath.Join(o.dir, "packs") }
func (o *objects) looseDir() string { return filepath.Join(o.dir, "loose") }
func (o *objects) packPath(id uint32, ext string) string {
	return filepath.Join(o.packDir(), fmt.Sprintf("p-%08d.%s", id, ext))
}
func (o *objects) loosePath(h Hash) string {
	s := h.String()
	return filepath.Join(o.looseDir(), s[:2], s[2:])
}

func (o *objects) loadPacks() error {
	ents, err := os.ReadDir(o.packDir())
	if err != nil {
		return fmt.Errorf("read snapshot packs: %w", err)
	}
	idx := map[uint32]bool{}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, "p-") && strings.HasSuffix(name, ".idx") {
			n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "p-"), ".idx"), 10, 32)
			if err == nil {
				idx[uint32(n)] = true
			}
		}
	}
	for _, e := range ents {
		name := e.Name()
		full := filepath.Join(o.packDir(), name)
		if !strings.HasPrefix(name, "p-") || strings.Contains(name, ".tmp") {
			_ = os.Remove(full) // leftovers of an interrupted write
			continue
		}
		base := strings.TrimPrefix(name, "p-")
		dot := strings.IndexByte(base, '.')
		if dot < 0 {
			continue
		}
		n, err := strconv.ParseUint(base[:dot], 10, 32)
		if err != nil {
			continue
		}
		id := uint32(n)
		if id >= o.nextPack {
			o.nextPack = id + 1
		}
		switch base[dot+1:] {
		case "pack":
			if !idx[id] {
				// Written but never committed: no checkpoint refers to it.
				o.log.Info("removing uncommitted snapshot pack", "pack", name)
				_ = os.Remove(full)
			}
		case "idx":
			if err := o.loadIdx(id); err != nil {
				return err
			}
		}
	}
	return nil
}

func (o *objects) loadIdx(id uint32) error {
	data, err := os.ReadFile(o.packPath(id, "idx"))
	if err != nil {
		return fmt.Errorf("read snapshot index: %w", err)
	}
	st, err := os.Stat(o.packPath(id, "pack"))
	if err != nil {
		return fmt.Errorf("snapshot pack %d lost its data file: %w", id, err)
	}
	if len(data) < len(idxMagic)+32 {
		return fmt.Errorf("%w: index of pack %d", ErrCorruptObject, id)
	}
	body, sum := data[:len(data)-32], data[len(data)-32:]
	if hashBytes(body) != Hash(sum) {
		return fmt.Errorf("%w: index of pack %d fails its checksum", ErrCorruptObject, id)
	}
	var ents []idxEnt
	switch {
	case bytes.HasPrefix(body, []byte(idxMagic)):
		ents, err = parseIdx(body[len(idxMagic):])
	case bytes.HasPrefix(body, []byte(idxMagicV1)):
		ents, err = parseIdxV1(body[len(idxMagicV1):])
	default:
		err = errors.New("unknown format")
	}
	if err != nil {
		return fmt.Errorf("%w: index of pack %d: %v", ErrCorruptObject, id, err)
	}
	for _, e := range ents {
		e.loc.pack = id
		o.locs[e.h] = e.loc
	}
	o.packs[id] = &packInfo{size: st.Size(), count: len(ents)}
	return nil
}

var errTruncated = errors.New("truncated")

// uvarints reads len(vals) uvarints from r.
func uvarints(r []byte, vals []int64) ([]byte, error) {
	for i := range vals {
		v, n := binary.Uvarint(r)
		if n <= 0 || v > 1<<62 {
			return r, errTruncated
		}
		vals[i], r = int64(v), r[n:]
	}
	return r, nil
}

func parseIdxV1(r []byte) ([]idxEnt, error) {
	var out []idxEnt
	for len(r) > 0 {
		if len(r) < 33 {
			return nil, errTruncated
		}
		var e idxEnt
		copy(e.h[:], r[:32])
		e.loc.enc = r[32]
		var vals [3]int64
		var err error
		if r, err = uvarints(r[33:], vals[:]); err != nil {
			return nil, err
		}
		e.loc.off, e.loc.stored, e.loc.raw = vals[0], vals[1], vals[2]
		out = append(out, e)
	}
	return out, nil
}

// idxRec is one record of a version 2 pack.
type idxRec struct {
	enc              byte
	off, stored, raw int64
}

// parseIdx reads a version 2 index: the records, then per object its hash,
// record number, offset in the decoded record and length. A record past the
// end of a damaged pack is not an error here: reading it reports the object
// missing, and the rest of the store stays usable.
func parseIdx(r []byte) ([]idxEnt, error) {
	var n [1]int64
	r, err := uvarints(r, n[:])
	if err != nil || n[0] > int64(len(r)) {
		return nil, errTruncated
	}
	recs := make([]idxRec, n[0])
	for i := range recs {
		if len(r) < 1 {
			return nil, errTruncated
		}
		rec := idxRec{enc: r[0]}
		var vals [3]int64
		if r, err = uvarints(r[1:], vals[:]); err != nil {
			return nil, err
		}
		rec.off, rec.stored, rec.raw = vals[0], vals[1], vals[2]
		if rec.enc != encRaw && rec.enc != encZstd || rec.off < int64(len(packMagic)) || rec.enc == encRaw && rec.stored != rec.raw {
			return nil, fmt.Errorf("record %d is out of bounds", i)
		}
		recs[i] = rec
	}
	var out []idxEnt
	for len(r) > 0 {
		if len(r) < 32 {
			return nil, errTruncated
		}
		var e idxEnt
		copy(e.h[:], r[:32])
		var vals [3]int64
		if r, err = uvarints(r[32:], vals[:]); err != nil {
			return nil, err
		}
		ri, inner, raw := vals[0], vals[1], vals[2]
		if ri >= int64(len(recs)) || inner+raw > recs[ri].raw {
			return nil, fmt.Errorf("object %s is out of bounds", e.h.Short())
		}
		rec := recs[ri]
		switch {
		case rec.enc == encRaw:
			// Raw bytes are read in place, block or not.
			e.loc = objLoc{enc: encRaw, off: rec.off + inner, stored: raw, raw: raw}
		case inner == 0 && raw == rec.raw:
			e.loc = objLoc{enc: rec.enc, off: rec.off, stored: rec.stored, raw: raw}
		default:
			e.loc = objLoc{enc: encBlock, off: rec.off, stored: rec.stored, raw: raw, inner: inner, braw: rec.raw}
		}
		out = append(out, e)
	}
	return out, nil
}

func (o *objects) loadLoose() error {
	subs, err := os.ReadDir(o.looseDir())
	if err != nil {
		return fmt.Errorf("read snapshot store: %w", err)
	}
	for _, sub := range subs {
		full := filepath.Join(o.looseDir(), sub.Name())
		if !sub.IsDir() {
			_ = os.Remove(full) // temp file of an interrupted clone
			continue
		}
		files, err := os.ReadDir(full)
		if err != nil {
			return fmt.Errorf("read snapshot store: %w", err)
		}
		for _, f := range files {
			h, err := ParseHash(sub.Name() + f.Name())
			if err != nil {
				_ = os.Remove(filepath.Join(full, f.Name()))
				continue
			}
			info, err := f.Info()
			if err != nil {
				continue
			}
			o.locs[h] = objLoc{pack: 0, enc: encRaw, stored: info.Size(), raw: info.Size()}
			o.looseBytes += info.Size()
		}
	}
	return nil
}

func (o *objects) has(h Hash) bool {
	o.mu.RLock()
	_, ok := o.locs[h]
	o.mu.RUnlock()
	return ok
}

func (o *objects) loc(h Hash) (objLoc, bool) {
	o.mu.RLock()
	l, ok := o.locs[h]
	o.mu.RUnlock()
	return l, ok
}

// totalBytes is the on-disk size of all objects.
func (o *objects) totalBytes() int64 {
	o.mu.RLock()
	defer o.mu.RUnlock()
	n := o.looseBytes
	for _, p := range o.packs {
		n += p.size
	}
	return n
}

func (o *objects) packFile(id uint32) (*os.File, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.packs[id]
	if p == nil {
		return nil, fmt.Errorf("%w: pack %d", ErrMissingObject, id)
	}
	if p.f == nil {
		f, err := os.Open(o.packPath(id, "pack"))
		if err != nil {
			return nil, fmt.Errorf("open snapshot pack: %w", err)
		}
		p.f = f
	}
	return p.f, nil
}

// get returns an object's content, verified against its hash.
func (o *objects) get(h Hash) ([]byte, error) {
	loc, ok := o.loc(h)
	if !ok {
		return nil, &MissingObjectError{Hash: h}
	}
	var data []byte
	if loc.pack == 0 {
		b, err := os.ReadFile(o.loosePath(h))
		if errors.Is(err, os.ErrNotExist) {
			return nil, &MissingObjectError{Hash: h}
		}
		if err != nil {
			return nil, fmt.Errorf("read snapshot object: %w", err)
		}
		data = b
	} else {
		if loc.enc == encBlock {
			blk, err := o.block(loc)
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil, &MissingObjectError{Hash: h}
				}
				return nil, fmt.Errorf("%w: object %s: %w", ErrCorruptObject, h.Short(), err)
			}
			// Capped: the block is cached and shared.
			end := loc.inner + loc.raw
			data = blk[loc.inner:end:end]
		} else {
			buf, err := o.readStored(loc)
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil, &MissingObjectError{Hash: h}
				}
				return nil, fmt.Errorf("read snapshot object: %w", err)
			}
			data, err = o.codec.unpack(buf, loc.enc, loc.raw)
			if err != nil {
				return nil, fmt.Errorf("%w: object %s: %v", ErrCorruptObject, h.Short(), err)
			}
		}
	}
	if hashBytes(data) != h {
		return nil, fmt.Errorf("%w: object %s does not match its hash", ErrCorruptObject, h.Short())
	}
	return data, nil
}

func (o *objects) readStored(l objLoc) ([]byte, error) {
	f, err := o.packFile(l.pack)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, l.stored)
	if _, err := f.ReadAt(buf, l.off); err != nil {
		return nil, err
	}
	return buf, nil
}

// block returns the decoded block l lives in, from a small cache: a
// rollback often restores several files written side by side.
func (o *objects) block(l objLoc) ([]byte, error) {
	k := blockKey{l.pack, l.off}
	if b := o.blocks.get(k); b != nil {
		return b, nil
	}
	buf, err := o.readStored(l)
	if err != nil {
		return nil, err
	}
	b, err := o.codec.unpack(buf, encZstd, l.braw)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != l.braw {
		return nil, fmt.Errorf("block decodes to %d bytes, want %d", len(b), l.braw)
	}
	o.blocks.put(k, b)
	return b, nil
}

type blockKey struct {
	pack uint32
	off  int64
}

// blockCache keeps recently decoded blocks, up to a byte budget: a plan
// decodes the blocks of the files it previews and Apply then finds them.
type blockCache struct {
	mu    sync.Mutex
	m     map[blockKey][]byte
	order []blockKey // oldest first
	bytes int
}

const blockCacheBytes = 32 << 20

func (c *blockCache) get(k blockKey) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *blockCache) put(k blockKey, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[blockKey][]byte{}
	}
	if _, ok := c.m[k]; ok {
		return
	}
	for c.bytes+len(b) > blockCacheBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old])
		delete(c.m, old)
	}
	c.m[k] = b
	c.order = append(c.order, k)
	c.bytes += len(b)
}

func (c *blockCache) clear() {
	c.mu.Lock()
	c.m, c.order, c.bytes = nil, nil, 0
	c.mu.Unlock()
}

func (o *objects) close() {
	o.mu.Lock()
	for _, p := range o.packs {
		if p.f != nil {
			_ = p.f.Close()
			p.f = nil
		}
	}
	o.mu.Unlock()
	o.codec.close()
}

func (o *objects) allocPack() uint32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	id := o.nextPack
	o.nextPack++
	return id
}

// batch collects the new objects of one checkpoint into one pack, made
// durable by a single commit.
type batch struct {
	o *objects

	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	id    uint32
	off   int64
	recs  []idxRec
	ents  []batchEnt
	seen  map[Hash]struct{}
	loose []Hash
	err   error
	// Open blocks of small blobs: compressible ones, and ones stored raw
	// (random data would only dilute a compressed block).
	zblk, rblk pending

	newObjects int
	newBytes   int64
}

type batchEnt struct {
	h          Hash
	rec        int
	inner, raw int64
}

type idxEnt struct {
	h   Hash
	loc objLoc
}

// pending is a block being filled.
type pending struct {
	data []byte
	objs []batchEnt // rec unset until written
}

func (o *objects) newBatch() *batch { return &batch{o: o, seen: map[Hash]struct{}{}} }

// claim marks h as being written; false means someone already has it.
func (b *batch) claim(h Hash) bool {
	if b.o.has(h) {
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

// put stores a blob (file content or link target) under its hash h
// (computed by the caller).
func (b *batch) put(h Hash, raw []byte) error {
	if !b.claim(h) {
		return nil
	}
	return b.addBlob(h, raw)
}

// putTree stores a tree object. Trees are compressed alone: a plan reads
// them one by one and should not decode a block for each.
func (b *batch) putTree(h Hash, raw []byte) error {
	if !b.claim(h) {
		return nil
	}
	return b.putAlone(h, raw)
}

func (b *batch) putAlone(h Hash, raw []byte) error {
	stored, enc := b.o.codec.pack(raw)
	return b.writeRec(enc, int64(len(raw)), stored, []batchEnt{{h: h, raw: int64(len(raw))}})
}

// addBlob writes a claimed blob: alone if big, else into an open block,
// which is compressed and written once full (by whichever worker fills it,
// so compression stays parallel).
func (b *batch) addBlob(h Hash, raw []byte) error {
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

func (b *batch) writeBlock(p pending, compressible bool) error {
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
func (b *batch) putStored(h Hash, l objLoc, stored []byte) error {
	b.mu.Lock()
	b.seen[h] = struct{}{}
	b.mu.Unlock()
	return b.writeRec(l.enc, l.raw, stored, []batchEnt{{h: h, raw: l.raw}})
}

// putAgain re-adds an object the store already has (repacking a block).
func (b *batch) putAgain(h Hash, raw []byte) error {
	b.mu.Lock()
	b.seen[h] = struct{}{}
	b.mu.Unlock()
	return b.addBlob(h, raw)
}

// writeRec appends one record holding objs.
func (b *batch) writeRec(enc byte, rawLen int64, stored []byte, objs []batchEnt) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	if b.f == nil {
		b.id = b.o.allocPack()
		f, err := os.OpenFile(b.o.packPath(b.id, "pack"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			b.err = classifyIO("create snapshot pack", err)
			return b.err
		}
		b.f, b.w = f, bufio.NewWriterSize(f, 1<<20)
		b.w.WriteString(packMagic)
		b.off = int64(len(packMagic))
	}
	if _, err := b.w.Write(stored); err != nil {
		b.err = classifyIO("write snapshot pack", err)
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
func (b *batch) addLoose(h Hash, size int64) {
	b.mu.Lock()
	b.loose = append(b.loose, h)
	b.newObjects++
	b.newBytes += size
	b.mu.Unlock()
}

// commit makes the batch durable (pack, then its index, then the directory
// entries) and publishes the objects. Nothing may refer to them before.
func (b *batch) commit() error {
	b.mu.Lock()
	z, r := b.zblk, b.rblk
	b.zblk, b.rblk = pending{}, pending{}
	b.mu.Unlock()
	if err := b.writeBlock(z, true); err != nil {
		b.abort()
		return err
	}
	if err := b.writeBlock(r, false); err != nil {
		b.abort()
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
			err = writeFileSync(o.packPath(b.id, "idx"), idx)
		}
		if err == nil {
			err = syncDir(o.packDir())
		}
		if err != nil {
			b.err = classifyIO("write snapshot pack", err)
			b.abortLocked()
			return b.err
		}
	}
	dirs := map[string]bool{}
	for _, h := range b.loose {
		dirs[filepath.Dir(o.loosePath(h))] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return classifyIO("sync snapshot store", err)
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
			o.locs[h] = objLoc{pack: 0, enc: encRaw, stored: st.Size(), raw: st.Size()}
			o.looseBytes += st.Size()
		}
	}
	return nil
}

// encodeIdx serialises a version 2 index (see parseIdx), checksummed.
func encodeIdx(recs []idxRec, ents []batchEnt) []byte {
	var buf bytes.Buffer
	buf.Grow(len(idxMagic) + len(recs)*12 + len(ents)*40 + 32)
	buf.WriteString(idxMagic)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v int64) { buf.Write(tmp[:binary.PutUvarint(tmp[:], uint64(v))]) }
	uv(int64(len(recs)))
	for _, r := range recs {
		buf.WriteByte(r.enc)
		uv(r.off)
		uv(r.stored)
		uv(r.raw)
	}
	for _, e := range ents {
		buf.Write(e.h[:])
		uv(int64(e.rec))
		uv(e.inner)
		uv(e.raw)
	}
	sum := hashBytes(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes()
}

// abort drops an unfinished batch; loose objects already renamed into place
// stay (they are valid and the next GC removes them if unused).
func (b *batch) abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.abortLocked()
}

func (b *batch) abortLocked() {
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

// writeFileSync writes data to path via a temp file, fsyncing the file
// before the rename so the name never points at partial data.
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
