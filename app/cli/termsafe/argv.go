package termsafe

import "strings"

// Argv renders a command line for reading: each argument escaped as
// String does, and quoted when it is empty or holds a space or a shell
// metacharacter, so ["rm", "-rf /"] cannot pass for ["rm", "-rf", "/"].
func Argv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		a = String(a)
		if a == "" || strings.ContainsAny(a, " '\"`$&|;<>()*?[]{}~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}
