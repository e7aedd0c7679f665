package pack

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

type packInfo struct {
	size  int64
	count int
	f     *os.File // opened on first read
}

// Store is the content-addressed object store: packs plus loose reflinked
// files. It is safe for concurrent use.
type Store struct {
	dir   string
	log   *slog.Logger
	codec *codec

	mu         sync.RWMutex
	locs       map[Key]loc
	packs      map[uint32]*packInfo
	nextPack   uint32
	looseBytes int64

	reflinkBroken atomic.Bool // set after the first clone the filesystem refuses

	blocks blockCache
}

// Open loads the store kept under dir (packs/ and loose/, created if
// needed), removing what an interrupted write left behind.
func Open(dir string, log *slog.Logger) (*Store, error) {
	c, err := newCodec()
	if err != nil {
		return nil, err
	}
	o := &Store{dir: dir, log: log, codec: c, locs: map[Key]loc{}, packs: map[uint32]*packInfo{}, nextPack: 1}
	for _, d := range []string{o.packDir(), o.looseDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, ClassifyIO("create snapshot store", err)
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

func (o *Store) packDir() string  { return filepath.Join(o.dir, "packs") }
func (o *Store) looseDir() string { return filepath.Join(o.dir, "loose") }
func (o *Store) packPath(id uint32, ext string) string {
	return filepath.Join(o.packDir(), fmt.Sprintf("p-%08d.%s", id, ext))
}
func (o *Store) loosePath(h Key) string {
	s := hex.EncodeToString(h[:])
	return filepath.Join(o.looseDir(), s[:2], s[2:])
}

func (o *Store) loadPacks() error {
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

func (o *Store) loadIdx(id uint32) error {
	data, err := os.ReadFile(o.packPath(id, "idx"))
	if err != nil {
		return fmt.Errorf("read snapshot index: %w", err)
	}
	st, err := os.Stat(o.packPath(id, "pack"))
	if err != nil {
		return fmt.Errorf("snapshot pack %d lost its data file: %w", id, err)
	}
	if len(data) < len(idxMagic)+32 {
		return fmt.Errorf("%w: index of pack %d", ErrCorrupt, id)
	}
	body, sumb := data[:len(data)-32], data[len(data)-32:]
	if sum(body) != Key(sumb) {
		return fmt.Errorf("%w: index of pack %d fails its checksum", ErrCorrupt, id)
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
		return fmt.Errorf("%w: index of pack %d: %v", ErrCorrupt, id, err)
	}
	for _, e := range ents {
		e.loc.pack = id
		o.locs[e.h] = e.loc
	}
	o.packs[id] = &packInfo{size: st.Size(), count: len(ents)}
	return nil
}

func (o *Store) loadLoose() error {
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
			h, err := parseKey(sub.Name() + f.Name())
			if err != nil {
				_ = os.Remove(filepath.Join(full, f.Name()))
				continue
			}
			info, err := f.Info()
			if err != nil {
				continue
			}
			o.locs[h] = loc{pack: 0, enc: encRaw, stored: info.Size(), raw: info.Size()}
			o.looseBytes += info.Size()
		}
	}
	return nil
}

// Has reports whether the store holds h.
func (o *Store) Has(h Key) bool {
	o.mu.RLock()
	_, ok := o.locs[h]
	o.mu.RUnlock()
	return ok
}

func (o *Store) loc(h Key) (loc, bool) {
	o.mu.RLock()
	l, ok := o.locs[h]
	o.mu.RUnlock()
	return l, ok
}

// Size is the disk space h accounts for (its share of a shared block);
// ok=false if the store lacks it.
func (o *Store) Size(h Key) (n int64, ok bool) {
	l, ok := o.loc(h)
	return l.size(), ok
}

// TotalBytes is the on-disk size of all objects.
func (o *Store) TotalBytes() int64 {
	o.mu.RLock()
	defer o.mu.RUnlock()
	n := o.looseBytes
	for _, p := range o.packs {
		n += p.size
	}
	return n
}

// Close releases the open pack files and the codec.
func (o *Store) Close() {
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

func (o *Store) allocPack() uint32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	id := o.nextPack
	o.nextPack++
	return id
}
