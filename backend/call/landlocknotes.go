package call

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// On Landlock a directory that lacks a protected name (a project's root
// lacks .envrc, .mcp.json, …) takes no new entry at all: Landlock grants
// or refuses making entries in a directory, not one name in it
// (bubblewrap and the container guard each name instead). A command
// refused a new file there sees only "Permission denied" and would try
// again another way; the note says why, and what works.

// missingProtected is a workspace's protected paths that do not exist,
// as the Landlock backend reads them; none when they cannot be read.
func missingProtected(ws string) []string {
	set, err := protect.For(ws)
	if err != nil {
		return nil
	}
	return set.Missing
}

// deniedEntry finds the path of a "Permission denied" line: quoted
// ('x', ‘x’, "x"), after dash's "cannot create", or just before the
// errno ("bash: x: Permission denied").
var deniedEntry = regexp.MustCompile(`['"‘\x60]([^'"’\x60\s]+)['"’\x60]|cannot create (\S+): |(?:^|: )([^\s:'"‘’\x60]+): [Pp]ermission denied`)

// lack is what a locked directory lacks: the first protected name, and
// how many.
type lack struct {
	first string
	n     int
}

// lockedDirs are the workspaces' directories that lack a protected name,
// which Landlock lets take no new entry.
func lockedDirs(workspaces []string, missing func(ws string) []string) map[string]*lack {
	locked := map[string]*lack{}
	for _, ws := range workspaces {
		for _, mp := range missing(ws) {
			d := filepath.Dir(mp)
			if locked[d] == nil {
				locked[d] = &lack{first: filepath.Base(mp)}
			}
			locked[d].n++
		}
	}
	return locked
}

// lockedEntrySentence says why making p in its locked directory, which
// lacks l, was refused, and what works instead.
func lockedEntrySentence(p string, l *lack, instead string) string {
	dir := filepath.Dir(p)
	what := l.first + ", a name that steers the next session and that no command may create"
	if l.n > 1 {
		what = l.first + " and other names that steer the next session and that no command may create"
	}
	return "Gatehouse's Landlock sandbox refused making " + p + ": " + dir + " lacks " + what +
		", and Landlock can keep those from being made only by letting no command add anything to " + dir +
		". " + instead
}

// LandlockLockedEntry is why a Landlock sandbox refuses making the new
// entry p, "" when it does not: p exists already, lies outside the
// workspaces, or its directory takes new entries. An agent confined
// whole on Landlock (a Session's Backend) meets it with its own tools.
func LandlockLockedEntry(p string, workspaces []string) string {
	p = filepath.Clean(p)
	if !workspace.InsideAny(p, workspaces) {
		return ""
	}
	if _, err := os.Lstat(p); err == nil {
		return ""
	}
	l, ok := lockedDirs(workspaces, missingProtected)[filepath.Dir(p)]
	if !ok {
		return ""
	}
	// The agent's own file tools run in the same sandbox.
	return lockedEntrySentence(p, l, "Make the file with Gatehouse's write_file tool, or in a subdirectory.")
}

// landlockEntryNotes reads a Landlock command's error output for new
// entries refused in a directory that lacks a protected name. cwd
// resolves relative paths; missing gives a workspace's missing
// protected paths (read once, and only when a line needs them).
func landlockEntryNotes(stderr []byte, cwd string, workspaces []string, missing func(ws string) []string) []string {
	var locked map[string]*lack
	seen := map[string]bool{}
	return stderrNotes(stderr, func(line, lower string) (string, bool) {
		if !strings.Contains(lower, "permission denied") {
			return "", false
		}
		for _, m := range deniedEntry.FindAllStringSubmatch(line, -1) {
			p := m[1] + m[2] + m[3]
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			p = filepath.Clean(p)
			if seen[p] || !workspace.InsideAny(p, workspaces) {
				continue
			}
			if _, err := os.Lstat(p); err == nil {
				continue // there already: not a new entry
			}
			if locked == nil {
				locked = lockedDirs(workspaces, missing)
			}
			l, ok := locked[filepath.Dir(p)]
			if !ok {
				continue
			}
			seen[p] = true
			return lockedEntrySentence(p, l, "Make the file with your own file tool (or Gatehouse's write_file), or in a subdirectory."), true
		}
		return "", false
	})
}
