package workspace

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Limits on what an agent may pass as a path (Linux PATH_MAX and NAME_MAX).
const (
	MaxPathLen = 4096
	MaxNameLen = 255
)

// Path is a resolved location. Abs has no symlinks and no "..". When
// Inside, Root is the workspace root holding it and Rel is the
// slash-separated path below that root ("." for the root itself).
type Path struct {
	Input   string `json:"input"`
	Abs     string `json:"abs"`
	Root    string `json:"root,omitempty"`
	Rel     string `json:"rel,omitempty"`
	Inside  bool   `json:"inside"`
	Exists  bool   `json:"exists"`
	Symlink bool   `json:"symlink,omitempty"` // the name asked for is itself a symlink; Abs is where it leads
}

func (p Path) display() string {
	if p.Input != "" {
		return p.Input
	}
	return p.Abs
}

// Join returns the child called name of a directory path, unresolved: it
// is meant for walking a directory listing, where every open still refuses
// symlinks. Exists is left false.
func (p Path) Join(name string) (Path, error) {
	if err := checkName(name); err != nil {
		return Path{}, err
	}
	c := Path{Input: path.Join(p.display(), name), Abs: p.Abs + "/" + name, Root: p.Root, Inside: p.Inside}
	if p.Abs == "/" {
		c.Abs = "/" + name
	}
	if p.Inside {
		c.Rel = name
		if p.Rel != "." {
			c.Rel = p.Rel + "/" + name
		}
	}
	return c, nil
}

// Parent returns the directory holding p (p itself for a root).
func (p Path) Parent() Path {
	q := Path{Input: path.Dir(p.display()), Abs: path.Dir(p.Abs), Root: p.Root, Inside: p.Inside, Exists: p.Exists}
	if p.Inside {
		q.Rel = path.Dir(p.Rel)
		if p.Rel == "." {
			q.Abs = p.Abs
		}
	}
	return q
}

// Name is the last element of the path.
func (p Path) Name() string { return path.Base(p.Abs) }

// SplitRel splits a slash-separated relative path into its names, in
// order: the walk from a root down to Rel, and a tree lookup by path,
// take the same steps.
func SplitRel(rel string) []string {
	var out []string
	for rel != "" {
		i := 0
		for i < len(rel) && rel[i] != '/' {
			i++
		}
		out = append(out, rel[:i])
		if i == len(rel) {
			break
		}
		rel = rel[i+1:]
	}
	return out
}

func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/'):
		return pathErr(name, ErrInvalidPath, nil, fmt.Sprintf("%q is not a single file name", name))
	case strings.IndexByte(name, 0) >= 0:
		return pathErr(name, ErrInvalidPath, nil, "file name contains a NUL byte; remove it")
	case len(name) > MaxNameLen:
		return pathErr(name, ErrInvalidPath, nil, fmt.Sprintf("file name %.40q… is %d bytes long; the limit is %d", name, len(name), MaxNameLen))
	}
	return nil
}

// validateInput rejects what can never name a file, with a sentence that
// says how to fix it.
func validateInput(s string) error {
	switch {
	case s == "":
		return pathErr(s, ErrInvalidPath, nil, "path is empty; give a file path relative to the workspace or an absolute path")
	case strings.IndexByte(s, 0) >= 0:
		return pathErr(s, ErrInvalidPath, nil, fmt.Sprintf("path %q contains a NUL byte; remove it", s))
	case !utf8.ValidString(s):
		return pathErr(s, ErrInvalidPath, nil, fmt.Sprintf("path %q is not valid UTF-8; send the path as UTF-8 text", s))
	case len(s) > MaxPathLen:
		return pathErr(s, ErrInvalidPath, nil, fmt.Sprintf("path is %d bytes long; the limit is %d", len(s), MaxPathLen))
	case s == "~" || strings.HasPrefix(s, "~/"):
		return pathErr(s, ErrInvalidPath, nil, fmt.Sprintf("path %s starts with ~, which is not expanded; give an absolute path", s))
	}
	for _, c := range strings.Split(s, "/") {
		if len(c) > MaxNameLen {
			return pathErr(s, ErrInvalidPath, nil, fmt.Sprintf("path component %.40q… is %d bytes long; the limit is %d", c, len(c), MaxNameLen))
		}
	}
	return nil
}
