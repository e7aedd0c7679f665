package protect

import "sort"

// SecretSearchGlobs are ripgrep globs (gitignore syntax, each to follow a
// "!") that leave every name on the secret list out of a search: an
// agent's own search tool (Claude Code's Grep) runs outside the sandbox
// and would otherwise print a .env's lines to its model. They match as
// ripgrep matches, case and all, so they may leave out a little more than
// IsSecret would (.env.example) and never less but for case.
func SecretSearchGlobs() []string {
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
