package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"sort"
)

// Kind is what a tree entry is.
type Kind uint8

const (
	KindFile Kind = iota + 1
	KindSymlink
	KindDir
	// KindUnrestorable records a file that exists but whose content is not
	// kept (too big, unreadable, special). Rollback never touches it.
	KindUnrestorable
)

func (k Kind) String() string {
	switch k {
	case KindFile:
		return "file"
	case KindSymlink:
		return "symlink"
	case KindDir:
		return "dir"
	case KindUnrestorable:
		return "unrestorable"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Reason says why an entry is not restorable.
type Reason uint8

const (
	ReasonNone Reason = iota
	ReasonTooLarge
	ReasonUnreadable
	ReasonSpecial
)

// Entry is one name in a tree.
type Entry struct {
	Name   string
	Kind   Kind
	Perm   uint32 // permission bits incl. setuid/setgid/sticky (07777)
	Size   int64
	Hash   Hash // blob (file content or link target) or subtree; zero for unrestorable
	Reason Reason
}

// Mode renders the entry as an fs.FileMode.
func (e Entry) Mode() fs.FileMode {
	m := fs.FileMode(e.Perm & 0777)
	if e.Perm&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if e.Perm&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if e.Perm&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	switch e.Kind {
	case KindDir:
		m |= fs.ModeDir
	case KindSymlink:
		m |= fs.ModeSymlink
	}
	return m
}

// same reports whether two entries describe identical content and mode.
func (e Entry) same(o Entry) bool {
	if e.Kind != o.Kind || e.Hash != o.Hash {
		return false
	}
	if e.Kind == KindSymlink {
		return true // link permissions are meaningless on Linux
	}
	if e.Kind == KindUnrestorable {
		return e.Size == o.Size && e.Reason == o.Reason
	}
	return e.Perm == o.Perm
}

const treeMagic = "ghtree1\n"

// encodeTree serialises entries (sorted by name) into a tree object.
func encodeTree(es []Entry) []byte {
	var b bytes.Buffer
	b.Grow(len(treeMagic) + len(es)*56)
	b.WriteString(treeMagic)
	var tmp [binary.MaxVarintLen64]byte
	for _, e := range es {
		b.WriteByte(byte(e.Kind))
		b.WriteByte(byte(e.Reason))
		b.Write(tmp[:binary.PutUvarint(tmp[:], uint64(e.Perm))])
		b.Write(tmp[:binary.PutUvarint(tmp[:], uint64(e.Size))])
		b.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(e.Name)))])
		b.WriteString(e.Name)
		b.Write(e.Hash[:])
	}
	return b.Bytes()
}

func decodeTree(data []byte) ([]Entry, error) {
	if !bytes.HasPrefix(data, []byte(treeMagic)) {
		return nil, fmt.Errorf("%w: not a tree object", ErrCorruptObject)
	}
	r := data[len(treeMagic):]
	var out []Entry
	bad := fmt.Errorf("%w: truncated tree object", ErrCorruptObject)
	for len(r) > 0 {
		if len(r) < 2 {
			return nil, bad
		}
		e := Entry{Kind: Kind(r[0]), Reason: Reason(r[1])}
		r = r[2:]
		var vals [3]uint64
		for i := range vals {
			v, n := binary.Uvarint(r)
			if n <= 0 {
				return nil, bad
			}
			vals[i], r = v, r[n:]
		}
		e.Perm, e.Size = uint32(vals[0]), int64(vals[1])
		if uint64(len(r)) < vals[2]+32 {
			return nil, bad
		}
		e.Name = string(r[:vals[2]])
		r = r[vals[2]:]
		copy(e.Hash[:], r[:32])
		r = r[32:]
		out = append(out, e)
	}
	return out, nil
}

// findEntry binary-searches a sorted entry list.
func findEntry(es []Entry, name string) (int, bool) {
	i := sort.Search(len(es), func(i int) bool { return es[i].Name >= name })
	return i, i < len(es) && es[i].Name == name
}

var emptyTree = hashBytes(encodeTree(nil))
