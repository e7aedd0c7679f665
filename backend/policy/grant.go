package policy

import (
	"net/url"
	"path"
	"strings"
)

// Scope is how far a person's approval reaches.
type Scope string

const (
	ScopeOnce    Scope = "once"
	ScopeSession Scope = "session"
	ScopeAlways  Scope = "always"
)

// maxGrantWords is how many leading subcommand words a grant keeps.
const maxGrantWords = 2

// RuleFromCall builds the allow rule an approval widens to: the same binary
// and argument prefix for run_command, the same paths for file tools, the
// same host for fetch_url. The argument prefix is the leading subcommand
// words (gh pr create → ["pr","create"]); when there are none it is the whole
// argument list, so approving rm -rf build does not approve every rm.
func RuleFromCall(c Action, scope Scope) Rule {
	r := Rule{Action: Allow, Tool: c.Tool, source: SourceGrant}
	if scope == ScopeAlways {
		r.source = SourceUser
		r.Reason = "approved always"
	} else {
		r.Reason = "approved for this session"
	}
	var idParts []string
	switch classOf(c.Tool) {
	case classCommand:
		r.Binary = escapeGlob(c.Binary)
		var args []string
		if len(c.Argv) > 1 {
			args = c.Argv[1:]
		}
		n := 0
		for n < len(args) && n < maxGrantWords && isWord(args[n]) {
			n++
		}
		if n == 0 {
			n = len(args)
		}
		r.Args = append([]string(nil), args[:n]...)
		idParts = append(idParts, path.Base(c.Binary))
		for _, a := range r.Args {
			if isWord(a) {
				idParts = append(idParts, a)
			}
		}
	case classRead, classWrite:
		for _, p := range c.Paths {
			r.Paths = append(r.Paths, escapeGlob(p))
		}
		idParts = append(idParts, c.Tool)
		if len(c.Paths) > 0 {
			idParts = append(idParts, path.Base(c.Paths[0]))
		}
	case classFetch:
		r.Tool = ""
		if u, err := url.Parse(c.URL); err == nil {
			h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
			r.Domains = []string{h}
			idParts = append(idParts, "fetch", h)
		}
	default:
		idParts = append(idParts, c.Tool)
	}
	r.ID = "allow-" + strings.Join(idParts, "-")
	_ = r.compile("")
	return r
}

// isWord accepts subcommand-like arguments: lowercase letters, digits and
// inner dashes, no flags, paths, dots or values.
func isWord(a string) bool {
	if a == "" || a[0] == '-' || len(a) > 32 {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
