package config

import (
	"fmt"

	"github.com/pelletier/go-toml/v2"
)

// movedKeys names keys an earlier version read that now live elsewhere,
// so an old config says how to change it rather than failing as a type
// error.
func movedKeys(b []byte, name string) error {
	var top map[string]any
	if toml.Unmarshal(b, &top) != nil {
		return nil // the strict decode reports it
	}
	if _, old := top["workspaces"].([]any); old {
		return fmt.Errorf("%s: `workspaces = [...]` is now a table: write `[workspaces]` and, below it, `roots = [...]` with the same directories", name)
	}
	return nil
}

// oldPublic: the file says `public = true|false` at the top level (the
// whole daemon on a non-loopback address), not a [public] table.
func oldPublic(b []byte) bool {
	var top map[string]any
	if toml.Unmarshal(b, &top) != nil {
		return false
	}
	_, ok := top["public"].(bool)
	return ok
}
