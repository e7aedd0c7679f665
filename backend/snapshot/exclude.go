package snapshot

import (
	"path"
	"strings"
)

// DefaultExcludes are regenerable dependency and tool caches that are large
// and never hand-edited. Kept short on purpose: anything excluded is neither
// recorded nor ever touched by a rollback. Build outputs (target/, dist/,
// build/) are not here because those names are also used for real sources.
func DefaultExcludes() []string {
	return []string{"node_modules/", "__pycache__/", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/", ".gradle/"}
}

// excluder matches workspace-relative slash paths against glob patterns.
// A pattern ending in "/" matches directories only; a pattern with another
// "/" is anchored at the root and matched against the whole path; otherwise
// it is matched against the last element at any depth.
type excluder struct {
	base     []string // match the name
	anchored []string // match the whole path
	dirBase  []string
	dirAnch  []string
}

func newExcluder(patterns []string) *excluder {
	ex := &excluder{}
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		dirOnly := strings.HasSuffix(p, "/")
		p = strings.Trim(p, "/")
		if p == "" {
			continue
		}
		anchored := strings.Contains(p, "/")
		switch {
		case dirOnly && anchored:
			ex.dirAnch = append(ex.dirAnch, p)
		case dirOnly:
			ex.dirBase = append(ex.dirBase, p)
		case anchored:
			ex.anchored = append(ex.anchored, p)
		default:
			ex.base = append(ex.base, p)
		}
	}
	return ex
}

func (ex *excluder) match(rel string, isDir bool) bool {
	dir, name := splitRel(rel)
	return ex.matchIn(dir, name, isDir)
}

// matchIn is match for the entry name in directory dir; the walk calls it
// for every file, so it joins the path only when a pattern needs it.
func (ex *excluder) matchIn(dir, name string, isDir bool) bool {
	if matchAny(ex.base, name) || (isDir && matchAny(ex.dirBase, name)) {
		return true
	}
	if len(ex.anchored) == 0 && (!isDir || len(ex.dirAnch) == 0) {
		return false
	}
	rel := joinRel(dir, name)
	return matchAny(ex.anchored, rel) || (isDir && matchAny(ex.dirAnch, rel))
}

// matchesAncestor reports whether rel or any directory above it is excluded.
func (ex *excluder) matchesAncestor(rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if ex.match(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return ex.match(rel, isDir)
}

func matchAny(pats []string, s string) bool {
	for _, p := range pats {
		if ok, _ := path.Match(p, s); ok {
			return true
		}
	}
	return false
}
