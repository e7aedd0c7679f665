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
)

// objLoc says where an object's bytes live.
type objLoc struct {
	pack   uint32 // 0 = loose file
	enc    byte
	off    int64
	stored int64
	raw    int64
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
}

const (
	packMagic = "ghpack1\n"
	idxMagic  = "ghidx1\n"
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
	if len(data) < len(idxMagic)+32 || !bytes.HasPrefix(data, []byte(idxMagic)) {
		return fmt.Errorf("%w: index of pack %d", ErrCorruptObject, id)
	}
	body, sum := data[:len(data)-32], data[len(data)-32:]
	if hashBytes(body) != Hash(sum) {
		return fmt.Errorf("%w: index of pack %d fails its checksum", ErrCorruptObject, id)
	}
	r := body[len(idxMagic):]
	pi := &packInfo{size: st.Size()}
	for len(r) > 0 {
		if len(r) < 33 {
			return fmt.Errorf("%w: index of pack %d is truncated", ErrCorruptObject, id)
		}
		var h Hash
		copy(h[:], r[:32])
		loc := objLoc{pack: id, enc: r[32]}
		r = r[33:]
		var vals [3]int64
		for i := range vals {
			v, n := binary.Uvarint(r)
			if n <= 0 {
				return fmt.Errorf("%w: index of pack %d is truncated", ErrCorruptObject, id)
			}
			vals[i], r = int64(v), r[n:]
		}
		loc.off, loc.stored, loc.raw = vals[0], vals[1], vals[2]
		o.locs[h] = loc
		pi.count++
	}
	o.packs[id] = pi
	return nil
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
		f, err := o.packFile(loc.pack)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, loc.stored)
		if _, err := f.ReadAt(buf, loc.off); err != nil {
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
	if hashBytes(data) != h {
		return nil, fmt.Errorf("%w: object %s does not match its hash", ErrCorruptObject, h.Short())
	}
	return data, nil
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
	ents  []idxEnt
	seen  map[Hash]struct{}
	loose []Hash
	err   error

	newObjects int
	newBytes   int64
}

type idxEnt struct {
	h   Hash
	loc objLoc
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

// put stores raw under its hash h (computed by the caller).
func (b *batch) put(h Hash, raw []byte) error {
	if !b.claim(h) {
		return nil
	}
	stored, enc := b.o.codec.pack(raw)
	return b.write(h, enc, int64(len(raw)), stored)
}

// putStored copies an already encoded object (repacking).
func (b *batch) putStored(h Hash, l objLoc, stored []byte) error {
	b.mu.Lock()
	b.seen[h] = struct{}{}
	b.mu.Unlock()
	return b.write(h, l.enc, l.raw, stored)
}

func (b *batch) write(h Hash, enc byte, rawLen int64, stored []byte) error {
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
	var hdr [33 + 2*binary.MaxVarintLen64]byte
	copy(hdr[:], h[:])
	hdr[32] = enc
	n := 33
	n += binary.PutUvarint(hdr[n:], uint64(rawLen))
	n += binary.PutUvarint(hdr[n:], uint64(len(stored)))
	if _, err := b.w.Write(hdr[:n]); err != nil {
		b.err = classifyIO("write snapshot pack", err)
		return b.err
	}
	if _, err := b.w.Write(stored); err != nil {
		b.err = classifyIO("write snapshot pack", err)
		return b.err
	}
	b.ents = append(b.ents, idxEnt{h, objLoc{pack: b.id, enc: enc, off: b.off + int64(n), stored: int64(len(stored)), raw: rawLen}})
	b.off += int64(n) + int64(len(stored))
	b.newObjects++
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
	defer b.mu.Unlock()
	if b.err != nil {
		b.abortLocked()
		return b.err
	}
	o := b.o
	if b.f != nil {
		err := b.w.Flush()
		if err == nil {
			err = b.f.Sync()
		}
		if cerr := b.f.Close(); err == nil {
			err = cerr
		}
		b.f = nil
		if err == nil {
			err = b.writeIdx()
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
	if len(b.ents) > 0 {
		o.packs[b.id] = &packInfo{size: b.off, count: len(b.ents)}
		for _, e := range b.ents {
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

func (b *batch) writeIdx() error {
	var buf bytes.Buffer
	buf.Grow(len(idxMagic) + len(b.ents)*45 + 32)
	buf.WriteString(idxMagic)
	var tmp [binary.MaxVarintLen64]byte
	for _, e := range b.ents {
		buf.Write(e.h[:])
		buf.WriteByte(e.loc.enc)
		buf.Write(tmp[:binary.PutUvarint(tmp[:], uint64(e.loc.off))])
		buf.Write(tmp[:binary.PutUvarint(tmp[:], uint64(e.loc.stored))])
		buf.Write(tmp[:binary.PutUvarint(tmp[:], uint64(e.loc.raw))])
	}
	sum := hashBytes(buf.Bytes())
	buf.Write(sum[:])
	return writeFileSync(b.o.packPath(b.id, "idx"), buf.Bytes())
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
	b.ents = nil
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
