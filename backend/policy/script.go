package policy

import "strings"

// shells run a script given with -c.
var shells = set("sh", "bash", "dash", "zsh", "ksh", "ash", "busybox")

// shellScriptWords are the words a command's paths are looked for in: for
// `sh -c SCRIPT` the script's own words, so a path in it is judged as a
// path (not the cwd joined to the whole script); for any other command
// its arguments.
func shellScriptWords(base string, args []string) []string {
	if !shells[base] {
		return args
	}
	for i, arg := range args {
		if i+1 < len(args) && strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && strings.Contains(arg, "c") {
			out := append([]string(nil), args[:i+1]...)
			out = append(out, scriptWords(args[i+1])...)
			return append(out, args[i+2:]...)
		}
	}
	return args
}

// scriptWords splits a shell script into words at blanks and operators,
// without quotes. It is for finding paths, not for running anything:
// expansions stay as they are written.
func scriptWords(script string) []string {
	var words []string
	var b strings.Builder
	var quote rune
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range script {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
		case strings.ContainsRune(" \t\n;|&<>()`", r):
			flush()
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return words
}
