package config

// RootsFile edits the [workspaces] roots of a config file in place: the
// rest of the file, comments included, stays as the person wrote it.
type RootsFile struct{ Path string }

func (f RootsFile) list() listFile {
	return listFile{path: f.Path, table: "workspaces", key: "roots", get: func(c Config) []string { return c.Workspaces.Roots }}
}

// AddRoot adds root to the roots (once).
func (f RootsFile) AddRoot(root string) error { return f.list().add(root) }

// RemoveRoot drops root from the roots.
func (f RootsFile) RemoveRoot(root string) error { return f.list().remove(root) }
