package snapshot

import "golang.org/x/sys/unix"

func statKeyOf(st *unix.Stat_t) statKey {
	return statKey{
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, dev: uint64(st.Dev), size: st.Size, mode: uint32(st.Mode),
	}
}
