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
