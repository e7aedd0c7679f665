package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinks matches the kernel's limit on symlinks followed in one lookup.
const maxSymlinks = 40

// Resolve turns an agent-supplied path into a Path inside the workspace.
// A relative path is taken relative to the first root. ".." and symlinks
// are resolved before the check, so a symlink inside the workspace that
// leads out is refused. Use it for everything that writes.
func (r *Roots) Resolve(p string) (Path, error) {
	res, err := r.ResolveOutside(p)
	if err != nil {
		return Path{}, err
	}
	if res.Inside {
		return res, nil
	}
	return Path{}, r.outsideError(p, res.Abs)
}

// ResolveOutside resolves like Resolve but does not refuse a path outside
// the workspace: it reports Inside=false and leaves the decision (a human
// approving a read, say) to the caller. Invalid input is still an error.
func (r *Roots) ResolveOutside(p string) (Path, error) {
	if len(r.roots) == 0 {
		return Path{}, errors.New("the session has no workspace roots; start it with --workspace DIR")
	}
	if err := validateInput(p); err != nil {
		return Path{}, err
	}
	abs := p
	if !strings.HasPrefix(p, "/") {
		abs = r.roots[0].path + "/" + p
	}
	resolved, exists, symlink, err := evalPath(p, abs)
	if err != nil {
		return Path{}, err
	}
	out := Path{Input: p, Abs: resolved, Exists: exists, Symlink: symlink}
	if i, rel, ok := r.contains(resolved); ok {
		out.Inside, out.Root, out.Rel = true, r.roots[i].path, rel
	}
	return out, nil
}

func (r *Roots) outsideError(input, resolved string) error {
	first := r.roots[0].path
	lexical := filepath.Clean(input)
	if !filepath.IsAbs(lexical) {
		lexical = filepath.Join(first, lexical)
	}
	if i, _, ok := r.contains(lexical); ok {
		return pathErr(input, ErrSymlink, ErrOutside, fmt.Sprintf(
			"path %s goes through a symlink to %s, which is outside the workspace %s", input, resolved, r.roots[i].path))
	}
	if !filepath.IsAbs(input) {
		return pathErr(input, ErrOutside, nil, fmt.Sprintf("path %s escapes the workspace %s", input, first))
	}
	return pathErr(input, ErrOutside, nil, fmt.Sprintf("path %s is outside the workspace (%s)", input, r.describe()))
}

// evalPath resolves abs the way the kernel would: component by component,
// splicing in symlink targets and applying ".." to what is really there.
// Components past the first missing one are taken literally. symlink
// reports whether the last component asked for was a symlink.
func evalPath(input, abs string) (resolved string, exists, symlink bool, err error) {
	rest := strings.Split(abs, "/")
	cur := "/"
	exists = true
	lastFound := "/" // deepest directory known to exist while exists is false
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			// Climbing back out of the missing part lands on real
			// directories again, whose entries may be symlinks.
			if !exists && (cur == lastFound || !strings.HasPrefix(cur, lastFound+"/")) {
				exists = true
			}
			continue
		}
		next := filepath.Join(cur, c)
		if !exists {
			cur = next
			continue
		}
		fi, lerr := os.Lstat(next)
		switch {
		case errors.Is(lerr, fs.ErrNotExist):
			exists, lastFound = false, cur
			cur = next
			continue
		case errors.Is(lerr, syscall.ENOTDIR):
			return "", false, false, pathErr(input, ErrInvalidPath, lerr, fmt.Sprintf("path %s treats %s as a directory, but it is a file", input, cur))
		case lerr != nil:
			return "", false, false, pathErr(input, nil, lerr, fmt.Sprintf("path %s cannot be checked: %v", input, lerr))
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(rest) > 0 && !fi.IsDir() && hasMore(rest) {
				return "", false, false, pathErr(input, ErrInvalidPath, syscall.ENOTDIR, fmt.Sprintf("path %s treats %s as a directory, but it is a file", input, next))
			}
			cur = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", false, false, pathErr(input, ErrSymlink, syscall.ELOOP, fmt.Sprintf("path %s goes through more than %d symlinks (a loop?)", input, maxSymlinks))
		}
		target, rerr := os.Readlink(next)
		if rerr != nil {
			return "", false, false, pathErr(input, ErrSymlink, rerr, fmt.Sprintf("symlink %s in path %s cannot be read: %v", next, input, rerr))
		}
		if !hasMore(rest) {
			symlink = true
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, exists, symlink, nil
}

// hasMore reports whether any real component is left to walk.
func hasMore(todo []string) bool {
	for _, c := range todo {
		if c != "" && c != "." {
			return true
		}
	}
	return false
}
