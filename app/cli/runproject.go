package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// makeProjectDirs makes each of names missing in ws as an empty
// directory, so the scan for protected names finds it and the run binds
// it read-only: an agent's own sandbox that binds it then finds it
// instead of making it, which the run refuses. A name already there,
// whatever it is, is left as it is, to the scan. It returns the names it
// made.
func makeProjectDirs(ws string, names []string) ([]string, error) {
	var made []string
	for _, n := range names {
		err := os.Mkdir(filepath.Join(ws, n), 0o755)
		switch {
		case errors.Is(err, fs.ErrExist):
		case err != nil:
			return made, fmt.Errorf("make an empty %s in %s: %w", n, ws, err)
		default:
			made = append(made, n)
		}
	}
	return made, nil
}
