//go:build linux || darwin

package snapshot

import "golang.org/x/sys/unix"

// statKeyOf is the part of a stat that says a file may have changed; the
// fields have the same names on Linux and macOS.
func statKeyOf(st *unix.Stat_t) statKey {
	return statKey{
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, dev: uint64(st.Dev), size: st.Size, mode: uint32(st.Mode),
	}
}
