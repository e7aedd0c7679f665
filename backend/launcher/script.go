package launcher

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Marker begins a launcher's second line; LookPath knows launchers by it.
const Marker = "# gatehouse-launcher"

// DirName is the launchers' directory inside the data dir.
const DirName = "shims"

// Dir is the launchers' directory for dataDir.
func Dir(dataDir string) string { return filepath.Join(dataDir, DirName) }

// Path is the launcher for the agent name.
func Path(dataDir, name string) string { return filepath.Join(Dir(dataDir), name) }

// Script is the launcher for the agent name: it takes its own directory out
// of PATH (an empty entry, the current directory, stays as ".") and starts
// `BIN --data DATA run --launcher NAME ARG…`. The PATH loop splits PATH
// with a ":" added, so that a trailing empty entry is split off too;
// `set -f` keeps an entry with a "*" from being expanded.
func Script(bin, dataDir, name string) []byte {
	return []byte(fmt.Sprintf(`#!/bin/sh
%s %s
# Typing %s starts it confined for its whole life (gatehouse run %s).
# Written by: gatehouse install %s --confine
# Removed by: gatehouse install %s --uninstall
shims=%s
path=
rest=$PATH:
IFS=:
set -f
for d in $rest; do
	case ${d:-.} in
	"$shims" | "$shims/") ;;
	*) path=${path:+$path:}${d:-.} ;;
	esac
done
set +f
unset IFS
PATH=$path
export PATH
exec %s --data %s run --launcher %s "$@"
`, Marker, name, name, name, name, name, shQuote(Dir(dataDir)), shQuote(bin), shQuote(dataDir), shQuote(name)))
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
