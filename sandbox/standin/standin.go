// Package standin makes stand-ins for hidden secret files: a file as
// long as the secret, with its mode and modification time and none of
// its content, so git in a sandbox (told core.checkStat=minimal, see
// sandbox.GitCoherentEnv) finds a tracked secret unchanged rather than
// emptied. An empty cover made git see every tracked .env as emptied:
// `commit -am` recorded it empty and `reset --hard` failed on the mount
// point. A command's own sandbox makes its stand-ins on a tmpfs of its
// own (initproc); a confined agent's and a container's come from here.
package standin

import (
	"os"
	"path/filepath"
	"strconv"
)

// fill bounds how much of a stand-in is written: a larger secret gets a
// sparse stand-in (zeros), a smaller one '#' lines a dotenv loader reads
// as comments.
const fill = 1 << 20

// Make writes into dir a stand-in for each regular, non-empty file of
// paths and returns where each one's stand-in is. Files it cannot stat
// or copy the shape of are left out: they keep an empty cover.
func Make(dir string, paths []string) map[string]string {
	out := map[string]string{}
	for i, p := range paths {
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
			continue
		}
		s := filepath.Join(dir, "standin-"+strconv.Itoa(i))
		if write(s, st) == nil {
			out[p] = s
		}
	}
	return out
}

// Shape is what a stand-in copies of its secret: when it changes, a
// stand-in made before no longer passes for the secret.
func Shape(p string) string {
	st, err := os.Lstat(p)
	if err != nil {
		return "missing"
	}
	return strconv.FormatInt(st.Size(), 10) + "/" + strconv.FormatInt(st.ModTime().UnixNano(), 10) + "/" + st.Mode().String()
}

func write(p string, st os.FileInfo) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if st.Size() <= fill {
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
	// Git compares the modification time; the access time is left alike.
	return os.Chtimes(p, st.ModTime(), st.ModTime())
}
