package gitguard

import (
	"encoding/binary"
	"io/fs"
	"syscall"
)

// appendStatKey adds what changes whenever a file is written, replaced,
// re-linked or chmodded: the change time cannot be set by a process.
func appendStatKey(b []byte, st fs.FileInfo) []byte {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		b = binary.LittleEndian.AppendUint32(b, uint32(st.Mode()))
		b = binary.LittleEndian.AppendUint64(b, uint64(st.Size()))
		return binary.LittleEndian.AppendUint64(b, uint64(st.ModTime().UnixNano()))
	}
	for _, v := range []uint64{s.Dev, s.Ino, uint64(s.Mode), uint64(s.Size), uint64(s.Mtim.Sec), uint64(s.Mtim.Nsec), uint64(s.Ctim.Sec), uint64(s.Ctim.Nsec), s.Nlink} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// links is how many names the file has.
func links(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Nlink
	}
	return 1
}
