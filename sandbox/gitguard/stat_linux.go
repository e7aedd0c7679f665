package gitguard

import (
	"fmt"
	"io/fs"
	"syscall"
)

// statKey is what changes whenever a file is written, replaced,
// re-linked or chmodded: the change time cannot be set by a process.
func statKey(st fs.FileInfo) string {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprint(st.Mode(), st.Size(), st.ModTime().UnixNano())
	}
	return fmt.Sprintf("%d:%d:%o:%d:%d.%d:%d.%d:%d", s.Dev, s.Ino, s.Mode, s.Size,
		s.Mtim.Sec, s.Mtim.Nsec, s.Ctim.Sec, s.Ctim.Nsec, s.Nlink)
}
