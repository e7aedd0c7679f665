package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

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

// loc says where an object's bytes live. For encBlock, off and stored
// are those of the whole shared block, and the object is raw bytes at inner
// in the decoded block.
type loc struct {
	pack   uint32 // 0 = loose file
	enc    byte
	off    int64
	stored int64
	raw    int64
	inner  int64 // encBlock only
	braw   int64 // encBlock only: the decoded block's length
}

// size is the disk space the object accounts for: its share of a block.
func (l loc) size() int64 {
	if l.enc == encBlock && l.braw > 0 {
		return l.stored * l.raw / l.braw
	}
	return l.stored
}

// idxEnt is one object as an index lists it.
type idxEnt struct {
	h   Key
	loc loc
}

// idxRec is one record of a version 2 pack.
type idxRec struct {
	enc              byte
	off, stored, raw int64
}

// batchEnt is one object of a record being written: rec is the record's
// number, inner and raw its place in the decoded record.
type batchEnt struct {
	h          Key
	rec        int
	inner, raw int64
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
			return nil, fmt.Errorf("object %s is out of bounds", short(e.h))
		}
		rec := recs[ri]
		switch {
		case rec.enc == encRaw:
			// Raw bytes are read in place, block or not.
			e.loc = loc{enc: encRaw, off: rec.off + inner, stored: raw, raw: raw}
		case inner == 0 && raw == rec.raw:
			e.loc = loc{enc: rec.enc, off: rec.off, stored: rec.stored, raw: raw}
		default:
			e.loc = loc{enc: encBlock, off: rec.off, stored: rec.stored, raw: raw, inner: inner, braw: rec.raw}
		}
		out = append(out, e)
	}
	return out, nil
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
	s := sum(buf.Bytes())
	buf.Write(s[:])
	return buf.Bytes()
}
