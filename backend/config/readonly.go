package config

// ReadOnlyFile edits the [sandbox] read_only list of a config file in
// place, as RootsFile does the roots.
type ReadOnlyFile struct{ Path string }

// AddReadOnly shows path read-only in every sandbox from the next start
// (once).
func (f ReadOnlyFile) AddReadOnly(path string) error {
	return listFile{path: f.Path, table: "sandbox", key: "read_only", get: func(c Config) []string { return c.Sandbox.ReadOnly }}.add(path)
}
