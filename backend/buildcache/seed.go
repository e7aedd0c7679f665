package buildcache

import (
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// maxSeedCopy bounds what seeding copies into one root (indexes; the
// packages themselves are linked).
const maxSeedCopy = 256 << 20

// seed links the host's cargo and npm caches into root, so the
// sandbox's cargo and npm find offline what the host's would: packages
// (content-addressed or versioned, never rewritten) become symbolic
// links to the host's read-only copies, and the small indexes the tools
// append to are copied. Only what the root lacks is added; eviction
// counts the links as nothing. Sandboxes write the root meanwhile, so
// every step goes through os.Root: a link planted there cannot send
// these writes elsewhere.
func (h Host) seed(root string, log *slog.Logger) {
	if h.CargoRegistry == "" && h.NpmCache == "" {
		return
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		log.Warn("build cache: cannot link the host's caches", "err", err)
		return
	}
	defer r.Close()
	budget := int64(maxSeedCopy)
	if h.CargoRegistry != "" {
		reg := filepath.Join(Cargo, "registry")
		n := mirror(filepath.Join(h.CargoRegistry, "cache"), r, filepath.Join(reg, "cache"), link, &budget)
		n += mirror(filepath.Join(h.CargoRegistry, "index"), r, filepath.Join(reg, "index"), copyFile, &budget)
		log.Debug("build cache: linked the host's cargo registry", "root", root, "entries", n)
	}
	if h.NpmCache != "" {
		cc := filepath.Join(Npm, "_cacache")
		n := mirror(filepath.Join(h.NpmCache, "content-v2"), r, filepath.Join(cc, "content-v2"), link, &budget)
		n += mirror(filepath.Join(h.NpmCache, "index-v5"), r, filepath.Join(cc, "index-v5"), copyFile, &budget)
		log.Debug("build cache: linked the host's npm cache", "root", root, "entries", n)
	}
}

type placeFunc func(src string, r *os.Root, dst string, budget *int64) error

// mirror places every regular file under src at the same place under
// dst (in r) where dst has none, and returns how many it placed.
func mirror(src string, r *os.Root, dst string, place placeFunc, budget *int64) int {
	n := 0
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return r.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, err := r.Lstat(target); err == nil {
			return nil
		}
		if place(p, r, target, budget) == nil {
			n++
		}
		return nil
	})
	return n
}

func link(src string, r *os.Root, dst string, _ *int64) error { return r.Symlink(src, dst) }

func copyFile(src string, r *os.Root, dst string, budget *int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil || st.Size() > *budget {
		return fs.ErrInvalid
	}
	tmp := dst + ".gatehouse-tmp"
	_ = r.Remove(tmp)
	out, err := r.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	*budget -= n
	if err != nil {
		_ = r.Remove(tmp)
		return err
	}
	return r.Rename(tmp, dst)
}
