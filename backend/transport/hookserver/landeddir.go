package hookserver

import (
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// landedDir is dir, where a command's shell ended, if the agent's shell
// may move there: a directory that exists now (a staged run's changes
// have landed or not by the time this is asked), in a workspace both as
// named and as it resolves. Else "": the agent's shell stays where it was.
// What the command reported is its own to forge, so nothing else of it is
// trusted.
func landedDir(workspaces []string, dir string) string {
	if dir == "" || !filepath.IsAbs(dir) || filepath.Clean(dir) != dir || !workspace.InsideAny(dir, workspaces) {
		return ""
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !workspace.InsideAny(real, workspaces) {
		return ""
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}
