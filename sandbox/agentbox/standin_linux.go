package agentbox

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// standInFill bounds how much of a stand-in is written: a larger secret
// gets a sparse one.
const standInFill = 1 << 20

// standIns makes, in dir, a stand-in for each hidden regular file: as
// long as the secret, with its mode and modification time and '#' lines
// for content, so git in the run (told core.checkStat=minimal, see
// sandbox.GitCoherentEnv) finds a tracked secret unchanged rather than
// emptied, as in a command's own sandbox (initproc's stand-ins). Files it
// cannot stat keep the empty cover.
func standIns(dir string, hidden []string) map[string]string {
	out := map[string]string{}
	for i, h := range hidden {
		st, err := os.Lstat(h)
		if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
			continue
		}
		p := filepath.Join(dir, "standin-"+strconv.Itoa(i))
		if writeStandIn(p, st) == nil {
			out[h] = p
		}
	}
	return out
}

func writeStandIn(p string, st os.FileInfo) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if st.Size() <= standInFill {
		b := make([]byte, st.Size())
		for i := range b {
			b[i] = '#'
		}
		b[len(b)-1] = '\n'
		_, err = f.Write(b)
	} else {
		err = f.Truncate(st.Size())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Chmod(p, st.Mode().Perm()); err != nil {
		return err
	}
	atime := st.ModTime()
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		atime = time.Unix(s.Atim.Sec, s.Atim.Nsec)
	}
	return os.Chtimes(p, atime, st.ModTime())
}
