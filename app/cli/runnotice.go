package cli

import (
	"path/filepath"
	"slices"
	"strings"
)

// landlockNotice is what the person is told before a confined run starts
// on Landlock: which directories take no new entry. Each lacks a name
// that steers the next session, and Landlock grants or refuses making
// entries in a directory, not one name in it, so the agent there sees
// only "Permission denied" (a command through Gatehouse is told why; a
// whole agent's own tools are not). Empty when no directory is locked.
func landlockNotice(uncreatable []string) string {
	var dirs []string
	for _, u := range uncreatable {
		if d := filepath.Dir(u); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		return ""
	}
	// Below the first (the project's root), a directory is named from it.
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = d
		if rel, err := filepath.Rel(dirs[0], d); i > 0 && err == nil && filepath.IsLocal(rel) {
			names[i] = rel
		}
	}
	where, lacks := names[0], "it lacks"
	if len(names) > 1 {
		where = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
		lacks = "each lacks"
	}
	return "gatehouse: on Landlock nothing new can be made directly in " + where + " (" + lacks +
		" names that steer the next session, which Landlock can keep from being made only by refusing every new entry there); what is there already, and subdirectories, work as usual"
}
