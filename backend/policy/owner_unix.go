//go:build unix

package policy

import (
	"io/fs"
	"syscall"
)

// ownerOf is the uid that owns a file.
func ownerOf(st fs.FileInfo) (uint32, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return s.Uid, true
}
