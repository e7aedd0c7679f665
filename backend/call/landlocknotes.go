package call

import (
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// On Landlock a directory that must take no new name (a project's root
// lacks .envrc, .mcp.json, …; a directory holds a secret Gatehouse hides)
// takes no new entry at all: Landlock grants or refuses making entries
// in a directory, not one name in it (bubblewrap and the container guard
// each name instead). A command refused a new file there sees only
// "Permission denied" and would try again another way; the note says
// why, and what works.

// LandlockLocks are a workspace's directories that take no new entry
// under Landlock, with why, as the Landlock backend carves them with
// exposure e; none when the workspace cannot be read.
func LandlockLocks(ws string, e protect.Exposure) map[string]landlock.Lock {
	w, err := protect.Scan(ws, e)
	if err != nil {
		return nil
	}
	return landlock.LockedDirs(w)
}

// deniedEntry finds the path of a "Permission denied" line: quoted
// ('x', ‘x’, "x"), after dash's "cannot create" or sed's "temporary file",
// or just before the errno ("bash: x: Permission denied").
var deniedEntry = lazyRegexp(`['"‘\x60]([^'"’\x60\s]+)['"’\x60]|(?:cannot create|temporary file) (\S+): |(?:^|: )([^\s:'"‘’\x60]+): [Pp]ermission denied`)

// lockedDirs are the workspaces' directories that take no new entry.
func lockedDirs(workspaces []string, locks func(ws string) map[string]landlock.Lock) map[string]landlock.Lock {
	locked := map[string]landlock.Lock{}
	for _, ws := range workspaces {
		for d, l := range locks(ws) {
			locked[d] = l
		}
	}
	return locked
}

// lockedEntrySentence says why making p in its locked directory was
// refused, and what works instead.
func lockedEntrySentence(p string, l landlock.Lock, instead string) string {
	return "Gatehouse's Landlock sandbox refused making " + p + ": " + l.Why(filepath.Dir(p)) + ". " + instead
}

// removal finds a line about taking an entry away (rm, rmdir, mv, a
// program's unlink or rename).
var removal = lazyRegexp(`cannot remove|failed to remove|cannot move|cannot rename|\bunlink|\brmdir\b|\brename`)

// lockedRemovalSentence says why removing or renaming p, in a directory
// that takes no new entry, was refused: Landlock grants removing down a
// whole tree too, so carving left the directory none.
func lockedRemovalSentence(p string, l landlock.Lock) string {
	dir := filepath.Dir(p)
	return "Gatehouse's Landlock sandbox refused removing or renaming " + p + ": " + l.Why(dir) +
		"; for the same reason nothing directly in " + dir + " can be removed or renamed under Landlock (in its subdirectories it can). " +
		"Empty or rewrite the file instead, or leave its removal to the person."
}

// LandlockLockedEntry is why a Landlock sandbox refuses making the new
// entry p, "" when it does not: p exists already, lies outside the
// workspaces, or its directory takes new entries. An agent confined
// whole on Landlock (a Session's Backend) meets it with its own tools.
func LandlockLockedEntry(p string, workspaces []string, e protect.Exposure) string {
	p = filepath.Clean(p)
	if !workspace.InsideAny(p, workspaces) {
		return ""
	}
	if _, err := os.Lstat(p); err == nil {
		return ""
	}
	l, ok := lockedDirs(workspaces, func(ws string) map[string]landlock.Lock { return LandlockLocks(ws, e) })[filepath.Dir(p)]
	if !ok {
		return ""
	}
	// The agent's own file tools run in the same sandbox.
	return lockedEntrySentence(p, l, "Make the file with Gatehouse's write_file tool, or in a subdirectory.")
}

// landlockEntryNotes reads a Landlock command's error output for new
// entries refused in a directory that takes none, and for existing ones
// that could not be removed or renamed there. cwd
// resolves relative paths; locks gives a workspace's locked directories
// (read once, and only when a line needs them).
func landlockEntryNotes(out *commandOutput, cwd string, workspaces []string, locks func(ws string) map[string]landlock.Lock) []string {
	var locked map[string]landlock.Lock
	seen := map[string]bool{}
	return stderrNotes(out, []string{"permission denied"}, func(line, lower string) (string, bool) {
		for _, m := range deniedEntry().FindAllStringSubmatch(line, -1) {
			p := m[1] + m[2] + m[3]
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			p = filepath.Clean(p)
			if seen[p] || !workspace.InsideAny(p, workspaces) {
				continue
			}
			_, err := os.Lstat(p)
			exists := err == nil
			if exists && !removal().MatchString(lower) {
				continue // there already, and not taken away: not this refusal
			}
			if locked == nil {
				locked = lockedDirs(workspaces, locks)
			}
			l, ok := locked[filepath.Dir(p)]
			if !ok {
				continue
			}
			seen[p] = true
			if exists {
				return lockedRemovalSentence(p, l), true
			}
			return lockedEntrySentence(p, l, "Make the file with your own file tool (or Gatehouse's write_file), or in a subdirectory."), true
		}
		return "", false
	})
}
