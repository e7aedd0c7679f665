package call

import (
	"path"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// A command refused a file that steers the next agent session or that
// the person's tools run by themselves (CLAUDE.md, .devcontainer,
// mise.toml, …) sees only an errno, and would likely try another way;
// the note says which kind it is, who reads or runs it, and the one way
// that is open: write_file, which asks the person.

// steeringSentence says what p is and how it may still be changed, or
// "" when p is no steering file.
func steeringSentence(p string) string {
	k, _, ok := protect.SteeringKind(p)
	if !ok {
		return ""
	}
	how := "write_file asks the person before changing it."
	if k.Instructions {
		how = "write_file can change it: the person is asked, unless their own request names the file."
	}
	return p + " " + k.Reader + ", so a command may not create or change it; " + how
}

// steeringErrnos are the errno texts a refused write shows as: a
// read-only mount, the creation guard, Landlock.
var steeringErrnos = []string{"read-only file system", "permission denied", "operation not permitted"}

// steeringNotes reads a command's error output for refused writes of
// steering files, one note per file, at most maxBoundaryNotes.
func steeringNotes(stderr []byte) []string {
	seen := map[string]bool{}
	return stderrNotes(stderr, func(line, lower string) (string, bool) {
		refused := false
		for _, e := range steeringErrnos {
			refused = refused || strings.Contains(lower, e)
		}
		if !refused {
			return "", false
		}
		for _, tok := range strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\'' || r == '"' || r == ':' || r == '‘' || r == '’' || r == '`' || r == '\t'
		}) {
			tok = path.Clean(tok)
			if seen[tok] {
				continue
			}
			if s := steeringSentence(tok); s != "" {
				seen[tok] = true
				return "Gatehouse's sandbox refused the write: " + s, true
			}
		}
		return "", false
	})
}
