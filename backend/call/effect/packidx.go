package effect

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
)

// A git pack index (.idx, version 2) read without git: the object names
// its pack holds. Whether a run's deleted objects survive (in a pack it
// kept or one it wrote) is a lookup in these.

// packIndex is one pack's object names, sorted, as hex.
type packIndex []string

var idxMagic = []byte{0xff, 't', 'O', 'c'}

// readPackIndex parses a version 2 pack index of SHA-1 names.
func readPackIndex(b []byte) (packIndex, error) {
	const fanout = 8 + 256*4
	if len(b) < fanout || !bytes.Equal(b[:4], idxMagic) || binary.BigEndian.Uint32(b[4:8]) != 2 {
		return nil, fmt.Errorf("not a version 2 pack index: %w", errIndex)
	}
	n := int(binary.BigEndian.Uint32(b[fanout-4 : fanout]))
	if n < 0 || len(b) < fanout+n*indexSHA1 {
		return nil, fmt.Errorf("pack index truncated: %w", errIndex)
	}
	out := make(packIndex, n)
	for i := range out {
		off := fanout + i*indexSHA1
		out[i] = hex.EncodeToString(b[off : off+indexSHA1])
	}
	return out, nil
}

func (p packIndex) has(sha string) bool {
	i := sort.SearchStrings(p, sha)
	return i < len(p) && p[i] == sha
}
