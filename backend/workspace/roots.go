package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Roots is the set of workspace directories of one session. Each root is
// held open so operations stay in the directory that was checked even if
// its path is later renamed.
type Roots struct {
	roots []root
}

type root struct {
	path string   // absolute, symlink-free
	dir  *os.File // directory descriptor every open is relative to
}

// New resolves each directory to an absolute, symlink-free path, refuses
// the filesystem root, home directories and system directories, and opens
// them. Duplicates are dropped; order is kept (the first root is where
// relative paths resolve).
func New(dirs ...string) (*Roots, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no workspace directory given; pass at least one --workspace DIR")
	}
	r := &Roots{}
	for _, d := range dirs {
		p, err := canonicalRoot(d)
		if err != nil {
			r.Close()
			return nil, err
		}
		if slices.ContainsFunc(r.roots, func(x root) bool { return x.path == p }) {
			continue
		}
		f, err := openRootDir(p)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("cannot open workspace %s: %w", p, err)
		}
		r.roots = append(r.roots, root{path: p, dir: f})
	}
	return r, nil
}

// Close releases the root descriptors.
func (r *Roots) Close() error {
	var errs []error
	for _, x := range r.roots {
		errs = append(errs, x.dir.Close())
	}
	r.roots = nil
	return errors.Join(errs...)
}

// Paths returns the root directories, first root first.
func (r *Roots) Paths() []string {
	out := make([]string, len(r.roots))
	for i, x := range r.roots {
		out[i] = x.path
	}
	return out
}

func canonicalRoot(d string) (string, error) {
	if d == "" {
		return "", errors.New("workspace directory is empty; pass an existing directory")
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", fmt.Errorf("cannot make workspace %s absolute: %w", d, err)
	}
	p, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s cannot be resolved; pass an existing directory: %w", d, err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("workspace %s cannot be read: %w", p, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory; pass a directory", p)
	}
	if why := unsafeRoot(p); why != "" {
		return "", fmt.Errorf("workspace %s is %s; pick a project directory instead", p, why)
	}
	return p, nil
}

// System directories that may never be a workspace themselves...
var refusedExact = []string{
	"/", "/home", "/Users", "/root", "/var", "/tmp", "/opt", "/srv", "/mnt",
	"/media", "/run", "/Volumes", "/Library", "/Applications", "/private",
	"/private/var", "/private/tmp", "/var/tmp",
}

// ...and trees that may not hold one anywhere inside.
var refusedTrees = []string{
	"/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32",
	"/lib64", "/libx32", "/boot", "/System", "/private/etc", "/var/lib", "/var/log",
	"/cores",
}

func unsafeRoot(p string) string {
	if home, err := os.UserHomeDir(); err == nil {
		if h, err := filepath.EvalSymlinks(home); err == nil && h == p {
			return "your home directory"
		}
	}
	if slices.Contains(refusedExact, p) {
		return "a system directory"
	}
	for _, t := range refusedTrees {
		if p == t || strings.HasPrefix(p, t+"/") {
			return "inside the system directory " + t
		}
	}
	return ""
}

// contains reports which root holds abs, preferring the deepest root so
// nested roots give the shortest relative path.
func (r *Roots) contains(abs string) (int, string, bool) {
	best, rel := -1, ""
	for i, x := range r.roots {
		var rl string
		switch {
		case abs == x.path:
			rl = "."
		case strings.HasPrefix(abs, x.path+"/"):
			rl = abs[len(x.path)+1:]
		default:
			continue
		}
		if best < 0 || len(x.path) > len(r.roots[best].path) {
			best, rel = i, rl
		}
	}
	return best, rel, best >= 0
}

func (r *Roots) rootFor(p Path) (root, error) {
	for _, x := range r.roots {
		if x.path == p.Root {
			return x, nil
		}
	}
	return root{}, pathErr(p.Input, ErrOutside, nil,
		fmt.Sprintf("path %s is not inside any workspace root of this session (%s)", p.display(), r.describe()))
}

func (r *Roots) describe() string {
	return strings.Join(r.Paths(), ", ")
}
