//go:build !linux

package gitguard

import (
	"encoding/binary"
	"io/fs"
)

func appendStatKey(b []byte, st fs.FileInfo) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(st.Mode()))
	b = binary.LittleEndian.AppendUint64(b, uint64(st.Size()))
	return binary.LittleEndian.AppendUint64(b, uint64(st.ModTime().UnixNano()))
}

// links is how many names the file has; 1 where Stat says nothing.
func links(fs.FileInfo) uint64 { return 1 }
