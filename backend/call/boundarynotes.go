package call

import (
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// A command the sandbox refuses sees only an errno ("Read-only file
// system", "No such file or directory"); these notes say that it was
// Gatehouse's boundary, and what the person could do.

// pathInError finds the path an error line names: quoted, or after the
// program's own "name: " prefix, absolute or home-relative (the first
// group), or relative above the command's directory (the second: git's
// "could not create leading directories of '../wt/.git'").
var pathInError = lazyRegexp(`(?:'|"|‘|\x60|: |^)((?:/|~/)[^'"’\x60:\s]+)|(?:'|"|‘|\x60|: )(\.\./[^'"’\x60:\s]*)`)

// sandboxRefusal is one path the sandbox refused a command.
type sandboxRefusal struct {
	path string
	// hid: the command could not see the path at all (it may be shown
	// read-only); otherwise it could not write it.
	hid  bool
	note string
}

// refusals are the errno texts the sandbox's refusals show as.
var refusals = []struct {
	errno string
	note  func(path, ws string) string
}{
	{"read-only file system", func(p, ws string) string {
		return "Gatehouse's sandbox kept " + p + " read-only: commands write only in the workspace (" + ws + "). If the task needs it, ask the person to make that change themselves."
	}},
	{"no such file or directory", func(p, ws string) string {
		return "Gatehouse's sandbox hides " + p + " from commands (only the workspace, " + ws + ", and toolchains are visible); if the task needs it, ask the person."
	}},
	{"permission denied", func(p, ws string) string {
		return "Gatehouse's sandbox refused " + p + ": commands write only in the workspace (" + ws + ") and see no more than it, the toolchains and the system; if the task needs it, ask the person."
	}},
}

// refusalErrnos are the refusals' errno texts.
var refusalErrnos = func() []string {
	var out []string
	for _, r := range refusals {
		out = append(out, r.errno)
	}
	return out
}()

// maxBoundaryNotes bounds the notes one result gets.
const maxBoundaryNotes = 3

// boundaryNotes are the sentences of boundaryRefusals.
func boundaryNotes(stderr []byte, cwd string, workspaces []string, home string, hidden func(string) bool) []string {
	var notes []string
	for _, r := range boundaryRefusals(newCommandOutput(stderr), cwd, workspaces, home, hidden) {
		notes = append(notes, r.note)
	}
	return notes
}

// boundaryRefusals reads a command's error output for refusals of paths
// outside every workspace (a relative one from cwd, the command's
// directory). hidden reports whether a path is one the sandbox does not
// show (a "no such file" of a visible path is the command's own
// business).
func boundaryRefusals(out *commandOutput, cwd string, workspaces []string, home string, hidden func(string) bool) []sandboxRefusal {
	if len(workspaces) == 0 {
		return nil
	}
	seen := map[string]bool{}
	return stderrNotes(out, refusalErrnos, func(line, lower string) (sandboxRefusal, bool) {
		for _, r := range refusals {
			if !strings.Contains(lower, r.errno) {
				continue
			}
			for _, m := range pathInError().FindAllStringSubmatch(line, -1) {
				p := m[1]
				switch {
				case p == "" && cwd == "":
					continue
				case p == "":
					p = filepath.Join(cwd, m[2])
				case strings.HasPrefix(p, "~/") && home != "":
					p = filepath.Join(home, p[2:])
				}
				p = filepath.Clean(p)
				// A missing file outside is the sandbox's only when it hides
				// it; a refusal outside the workspace is always its doing.
				if seen[p] || workspace.InsideAny(p, workspaces) || (r.errno == "no such file or directory" && !hidden(p)) {
					continue
				}
				seen[p] = true
				return sandboxRefusal{path: p, hid: r.errno != "read-only file system" && hidden(p), note: r.note(p, strings.Join(workspaces, ", "))}, true
			}
			break
		}
		return sandboxRefusal{}, false
	})
}

// stderrNotes reads the lines of a command's error output that hold one
// of markers for notes, at most one a line and maxBoundaryNotes in all;
// note gives a line's, if it has one, from the line and its lowercase
// form.
func stderrNotes[N any](out *commandOutput, markers []string, note func(line, lower string) (N, bool)) []N {
	var notes []N
	out.stderrLinesWith(markers, func(line, lower string) bool {
		if n, ok := note(line, lower); ok {
			notes = append(notes, n)
		}
		return len(notes) < maxBoundaryNotes
	})
	return notes
}
