package snapshot

import "strings"

// A rollback never deletes a git object made since: an object is named
// for its content and changes nothing while nothing names it, so leaving
// it loses nothing, while deleting one can break the repository. Another
// agent's git, in a worktree sharing the same object store, may have
// written it during the undone call and pointed its branch at it since.

// gitObjects is the object store of one root, as a path prefix ("" for
// none).
type gitObjects struct{ prefix string }

// gitObjectsIn finds the object store in tree, a root as it was before
// the rolled-back changes: a workspace's .git/objects, or objects/ of a
// root that is a git dir itself (a linked worktree's common dir, a
// submodule's repository). A repository made since has none there, and
// goes whole.
func (s *Store) gitObjectsIn(tree Hash) gitObjects {
	isDir := func(rel string) bool {
		e, err := s.entryAt(tree, rel)
		return err == nil && e != nil && e.Kind == KindDir
	}
	switch {
	case isDir(".git/objects"):
		return gitObjects{prefix: ".git/objects/"}
	case isDir("objects"):
		if e, err := s.entryAt(tree, "HEAD"); err == nil && e != nil {
			return gitObjects{prefix: "objects/"}
		}
	}
	return gitObjects{}
}

// has reports whether rel (slash-separated) lies in the object store.
func (g gitObjects) has(rel string) bool {
	return g.prefix != "" && strings.HasPrefix(rel, g.prefix)
}
