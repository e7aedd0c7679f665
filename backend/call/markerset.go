package call

import "bytes"

// markerSet finds any of a set of lower-case markers (two bytes or more)
// in one pass over a text: a table of the pairs of bytes markers begin
// with passes over almost every byte at the cost of one lookup, and only
// at a matching pair are the markers that begin there tried. Searching
// for each marker alone cost a pass each (1 MiB a stream and a few dozen
// markers: tens of milliseconds a call).
type markerSet struct {
	pair    [1 << 16]bool
	byFirst [256][][]byte
}

func newMarkerSet(markers []string) *markerSet {
	m := &markerSet{}
	for _, mk := range markers {
		if len(mk) < 2 {
			continue
		}
		m.pair[uint16(mk[0])<<8|uint16(mk[1])] = true
		m.byFirst[mk[0]] = append(m.byFirst[mk[0]], []byte(mk))
	}
	return m
}

// next is where the first marker at or after from begins in lower, or -1.
func (m *markerSet) next(lower []byte, from int) int {
	for i := from; i+1 < len(lower); i++ {
		if !m.pair[uint16(lower[i])<<8|uint16(lower[i+1])] {
			continue
		}
		for _, mk := range m.byFirst[lower[i]] {
			if bytes.HasPrefix(lower[i:], mk) {
				return i
			}
		}
	}
	return -1
}
