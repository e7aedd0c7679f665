package effect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// A git index read without git: the paths it lists at stage 0. A run that
// deleted .git leaves no repository for git to read the old index from, so
// the tracked files before a run come from the index's bytes as they were
// (the workspace's for a staged run, the checkpoint's for a checked one).

// errIndex is an index this parser does not understand (a format it does
// not know, a SHA-256 repository); the caller then counts nothing tracked.
var errIndex = errors.New("not a git index this reader understands")

const (
	indexStatBytes = 40 // ctime, mtime, dev, ino, mode, uid, gid, size
	indexSHA1      = 20
	flagExtended   = 0x4000
	flagStage      = 0x3000
	flagNameMask   = 0x0fff
	modeSparseDir  = 0o040000
)

// indexPaths lists the paths of an index at stage 0, sparse directory
// entries aside.
func indexPaths(b []byte) ([]string, error) {
	if len(b) < 12 || !bytes.Equal(b[:4], []byte("DIRC")) {
		return nil, errIndex
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d: %w", version, errIndex)
	}
	n := binary.BigEndian.Uint32(b[8:12])
	out := make([]string, 0, min(int(n), len(b)/62))
	p := 12
	prev := ""
	for i := uint32(0); i < n; i++ {
		start := p
		if p+indexStatBytes+indexSHA1+2 > len(b) {
			return nil, fmt.Errorf("entry %d truncated: %w", i, errIndex)
		}
		mode := binary.BigEndian.Uint32(b[p+24 : p+28])
		p += indexStatBytes + indexSHA1
		flags := binary.BigEndian.Uint16(b[p : p+2])
		p += 2
		if version >= 3 && flags&flagExtended != 0 {
			p += 2
		}
		var name string
		if version == 4 {
			strip, k := offsetVarint(b[p:])
			if k == 0 || int(strip) > len(prev) {
				return nil, fmt.Errorf("entry %d: bad prefix: %w", i, errIndex)
			}
			p += k
			end := bytes.IndexByte(b[p:], 0)
			if end < 0 {
				return nil, fmt.Errorf("entry %d truncated: %w", i, errIndex)
			}
			name = prev[:len(prev)-int(strip)] + string(b[p:p+end])
			p += end + 1
		} else {
			end := bytes.IndexByte(b[p:], 0)
			if end < 0 {
				return nil, fmt.Errorf("entry %d truncated: %w", i, errIndex)
			}
			name = string(b[p : p+end])
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			p = start + ((p+end-start)+8)&^7
		}
		prev = name
		if flags&flagStage == 0 && mode != modeSparseDir {
			out = append(out, name)
		}
	}
	return out, nil
}

// indexCount is the entry count in an index's header.
func indexCount(b []byte) (int, bool) {
	if len(b) < 12 || !bytes.Equal(b[:4], []byte("DIRC")) {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(b[8:12])), true
}

// offsetVarint decodes git's offset varint (index v4 prefix lengths);
// k is 0 when b ends inside it.
func offsetVarint(b []byte) (v uint64, k int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 0x7f)
	k = 1
	for c&0x80 != 0 {
		if k >= len(b) || k > 9 {
			return 0, 0
		}
		c = b[k]
		k++
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, k
}
