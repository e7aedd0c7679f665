package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"
)

// statKey is what must be equal for a file to be trusted unchanged without
// reading it (git's rule, with ctime and inode so in-place rewrites that
// restore mtime are still caught).
type statKey struct {
	mtime, ctime int64
	ino, dev     uint64
	size         int64
	mode         uint32
}

// node is one entry of a root's stat cache: the tree entry plus the stat it
// was computed from. Nodes are immutable once built, so a new scan can share
// unchanged nodes with the old cache and be adopted atomically on commit.
type node struct {
	e    Entry
	st   statKey
	racy bool // modified too close to the scan to trust the stat next time
	kids []*node
	// detail explains an unrestorable entry; not persisted.
	detail string
}

func (n *node) child(name string) *node {
	if n == nil {
		return nil
	}
	i := sort.Search(len(n.kids), func(i int) bool { return n.kids[i].e.Name >= name })
	if i < len(n.kids) && n.kids[i].e.Name == name {
		return n.kids[i]
	}
	return nil
}

func (n *node) lookup(rel string) *node {
	if rel == "" {
		return n
	}
	for _, part := range strings.Split(rel, "/") {
		n = n.child(part)
		if n == nil {
			return nil
		}
	}
	return n
}

// withPath returns a copy of root where rel is replaced by repl (nil
// deletes). Ancestors lose their tree hash because it no longer describes
// them. If an ancestor is not cached the root is returned unchanged, which
// only means the path is re-read next time.
func withPath(root *node, parts []string, repl *node) *node {
	if root == nil || root.e.Kind != KindDir {
		return root
	}
	cp := *root
	cp.e.Hash = Hash{}
	cp.racy = true // its cached listing is no longer what was read from disk
	name := parts[0]
	i := sort.Search(len(root.kids), func(i int) bool { return root.kids[i].e.Name >= name })
	found := i < len(root.kids) && root.kids[i].e.Name == name
	if len(parts) > 1 {
		if !found {
			return root
		}
		sub := withPath(root.kids[i], parts[1:], repl)
		if sub == root.kids[i] {
			return root
		}
		cp.kids = append([]*node(nil), root.kids...)
		cp.kids[i] = sub
		return &cp
	}
	kids := make([]*node, 0, len(root.kids)+1)
	kids = append(kids, root.kids[:i]...)
	if repl != nil {
		r := *repl
		r.e.Name = name
		kids = append(kids, &r)
	}
	if found {
		i++
	}
	kids = append(kids, root.kids[i:]...)
	cp.kids = kids
	return &cp
}

// Version 2 adds the scan fingerprint (see Store.scanPrint) after the magic
// and a BLAKE3 checksum at the end: the cache now also says which names a
// directory holds, and a damaged listing that still parsed would drop files
// from checkpoints. Version 1 caches are still read, with every directory listing distrusted
// (they never recorded a directory's stat anyway).
const (
	statMagicV1 = "ghstat1\n"
	statMagic   = "ghstat2\n"
)

func writeStatCache(path string, root *node, print Hash) error {
	w := make([]byte, 0, cacheSizeHint.Load()+4096)
	w = append(w, statMagic...)
	w = append(w, print[:]...)
	var emit func(n *node)
	emit = func(n *node) {
		w = binary.AppendUvarint(w, uint64(len(n.e.Name)))
		w = append(w, n.e.Name...)
		w = append(w, byte(n.e.Kind), byte(n.e.Reason))
		w = binary.AppendUvarint(w, uint64(n.e.Perm))
		w = binary.AppendVarint(w, n.e.Size)
		w = append(w, n.e.Hash[:]...)
		w = binary.AppendVarint(w, n.st.mtime)
		w = binary.AppendVarint(w, n.st.ctime)
		w = binary.AppendUvarint(w, n.st.ino)
		w = binary.AppendUvarint(w, n.st.dev)
		w = binary.AppendVarint(w, n.st.size)
		w = binary.AppendUvarint(w, uint64(n.st.mode))
		racy := byte(0)
		if n.racy {
			racy = 1
		}
		w = append(w, racy)
		w = binary.AppendUvarint(w, uint64(len(n.kids)))
		for _, k := range n.kids {
			emit(k)
		}
	}
	emit(root)
	cacheSizeHint.Store(int64(len(w)))
	sum := hashBytes(w)
	w = append(w, sum[:]...)
	tmp := path + ".tmp"
	// No fsync: a lost cache only costs re-reading files, and a torn one
	// fails its checksum.
	err := os.WriteFile(tmp, w, 0o600)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// cacheSizeHint is the size of the last cache written: the next is about
// the same, and growing a buffer of megabytes step by step was most of the
// cost of a save.
var cacheSizeHint atomic.Int64

var errBadCache = errors.New("stat cache is damaged")

// readStatCache loads a cache. If it was written under another fingerprint
// its file entries are still good but no directory listing is trusted: an
// entry excluded then, or the store itself, may be missing from it.
func readStatCache(path string, print Hash) (*node, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var body []byte
	trustDirs := false
	switch {
	case bytes.HasPrefix(data, []byte(statMagic)) && len(data) >= len(statMagic)+64:
		if hashBytes(data[:len(data)-32]) != Hash(data[len(data)-32:]) {
			return nil, fmt.Errorf("%w: checksum mismatch", errBadCache)
		}
		body = data[len(statMagic)+32 : len(data)-32]
		trustDirs = Hash(data[len(statMagic):len(statMagic)+32]) == print
	case bytes.HasPrefix(data, []byte(statMagicV1)):
		body = data[len(statMagicV1):]
	default:
		return nil, errBadCache
	}
	r := bytes.NewReader(body)
	uv := func() uint64 {
		v, e := binary.ReadUvarint(r)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	sv := func() int64 {
		v, e := binary.ReadVarint(r)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	byteAt := func() byte {
		b, e := r.ReadByte()
		if e != nil && err == nil {
			err = e
		}
		return b
	}
	var read func(depth int) *node
	read = func(depth int) *node {
		if depth > 4096 {
			err = errBadCache
			return nil
		}
		n := &node{}
		l := uv()
		if err != nil || l > uint64(r.Len()) {
			err = errBadCache
			return nil
		}
		name := make([]byte, l)
		io.ReadFull(r, name)
		n.e.Name = string(name)
		n.e.Kind = Kind(byteAt())
		n.e.Reason = Reason(byteAt())
		n.e.Perm = uint32(uv())
		n.e.Size = sv()
		if _, e := io.ReadFull(r, n.e.Hash[:]); e != nil {
			err = errBadCache
			return nil
		}
		n.st.mtime, n.st.ctime = sv(), sv()
		n.st.ino, n.st.dev = uv(), uv()
		n.st.size = sv()
		n.st.mode = uint32(uv())
		n.racy = byteAt() == 1
		if n.e.Kind == KindDir && !trustDirs {
			n.racy = true
		}
		k := uv()
		if err != nil || k > uint64(r.Len()) {
			err = errBadCache
			return nil
		}
		if k > 0 {
			n.kids = make([]*node, k)
			for i := range n.kids {
				if n.kids[i] = read(depth + 1); err != nil {
					return nil
				}
			}
		}
		return n
	}
	root := read(0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadCache, err)
	}
	return root, nil
}
