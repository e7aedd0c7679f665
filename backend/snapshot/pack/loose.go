package pack

import (
	"io"
	"os"
	"path/filepath"

	"github.com/zeebo/blake3"
)

// Clone reflinks a big file (open as fd src) into the store as a loose
// object, hashing the clone so the key matches the stored bytes even if the
// workspace file changes meanwhile. ok=false means the filesystem cannot
// reflink (it is not asked again once it refused); the caller reads the
// file and Puts it instead.
func (b *Batch) Clone(src int) (h Key, size int64, ok bool, err error) {
	if b.o.reflinkBroken.Load() {
		return Key{}, 0, false, nil
	}
	tmp, err := os.CreateTemp(b.o.looseDir(), "clone-*")
	if err != nil {
		return Key{}, 0, false, ClassifyIO("create snapshot object", err)
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := reflink(int(tmp.Fd()), src); err != nil {
		b.o.reflinkBroken.Store(true)
		return Key{}, 0, false, nil
	}
	hs := blake3.New()
	size, err = io.Copy(hs, tmp)
	if err != nil {
		return Key{}, 0, false, ClassifyIO("read snapshot clone", err)
	}
	copy(h[:], hs.Sum(nil))
	if !b.claim(h) {
		return h, size, true, nil
	}
	if err := tmp.Sync(); err != nil {
		return Key{}, 0, false, ClassifyIO("sync snapshot object", err)
	}
	tmp.Close()
	dst := b.o.loosePath(h)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return Key{}, 0, false, ClassifyIO("create snapshot object", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return Key{}, 0, false, ClassifyIO("store snapshot object", err)
	}
	keep = true
	b.addLoose(h, size)
	return h, size, true, nil
}
