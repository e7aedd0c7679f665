package protect

import (
	"sort"
	"strings"
	"unicode"
)

// SecretSearchGlobs are ripgrep globs (gitignore syntax, each to follow a
// "!") that leave every name on the secret list out of a search: an
// agent's own search tool (Claude Code's Grep) runs outside the sandbox
// and would otherwise print a .env's lines to its model. Each letter
// matches either case, as IsSecret does; they may leave out a little
// more than IsSecret would (.env.example), never less.
func SecretSearchGlobs() []string {
	globs := secretNameGlobs()
	for i, g := range globs {
		globs[i] = caseless(g)
	}
	return globs
}

// caseless makes each ASCII letter of glob outside a bracket expression
// match either case ("[eE]").
func caseless(glob string) string {
	var b strings.Builder
	inClass := false
	for _, r := range glob {
		switch {
		case inClass:
			inClass = r != ']'
			b.WriteRune(r)
		case r == '[':
			inClass = true
			b.WriteRune(r)
		case unicode.IsLetter(r) && r < unicode.MaxASCII && unicode.ToUpper(r) != unicode.ToLower(r):
			b.WriteString("[" + string(unicode.ToLower(r)) + string(unicode.ToUpper(r)) + "]")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// secretNameGlobs are the secret list's names as globs, lower-case.
func secretNameGlobs() []string {
	out := []string{".env", ".env[!a-zA-Z0-9]*"}
	for f := range secretFiles {
		out = append(out, f)
	}
	for e := range secretExts {
		out = append(out, "*"+e)
	}
	for _, p := range privateKeyPrefixes {
		out = append(out, p+"*")
	}
	for _, p := range secretPaths {
		out = append(out, "**/"+p)
	}
	for d := range secretDirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
