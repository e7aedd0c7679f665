package pack

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func (o *Store) packFile(id uint32) (*os.File, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.packs[id]
	if p == nil {
		return nil, fmt.Errorf("%w: pack %d", ErrMissing, id)
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

// Get returns an object's content, verified against its key. An object the
// store lacks, or whose bytes lie past the end of a truncated pack, is a
// *MissingError; damaged bytes wrap ErrCorrupt.
func (o *Store) Get(h Key) ([]byte, error) {
	loc, ok := o.loc(h)
	if !ok {
		return nil, &MissingError{Key: h}
	}
	var data []byte
	if loc.pack == 0 {
		b, err := os.ReadFile(o.loosePath(h))
		if errors.Is(err, os.ErrNotExist) {
			return nil, &MissingError{Key: h}
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
					return nil, &MissingError{Key: h}
				}
				return nil, fmt.Errorf("%w: object %s: %w", ErrCorrupt, short(h), err)
			}
			// Capped: the block is cached and shared.
			end := loc.inner + loc.raw
			data = blk[loc.inner:end:end]
		} else {
			buf, err := o.readStored(loc)
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil, &MissingError{Key: h}
				}
				return nil, fmt.Errorf("read snapshot object: %w", err)
			}
			data, err = o.codec.unpack(buf, loc.enc, loc.raw)
			if err != nil {
				return nil, fmt.Errorf("%w: object %s: %v", ErrCorrupt, short(h), err)
			}
		}
	}
	if sum(data) != h {
		return nil, fmt.Errorf("%w: object %s does not match its hash", ErrCorrupt, short(h))
	}
	return data, nil
}

// readStored returns a record's bytes as stored (compressed or not).
func (o *Store) readStored(l loc) ([]byte, error) {
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
func (o *Store) block(l loc) ([]byte, error) {
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
