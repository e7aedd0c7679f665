package hookserver

import (
	"errors"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// simpleWords splits a shell command into words when the shell would do
// nothing to it but split on blanks: no quoting, expansion, redirection,
// operators or comments, and a program, not one of the shell's own
// commands. Such a command runs the same as an argv, and policy can judge
// the program it names (git status) rather than "a shell".
func simpleWords(cmd string) ([]string, bool) {
	if strings.ContainsAny(cmd, "|&;<>()$`\\\"'*?[]#~=%!{}\n\r") {
		return nil, false
	}
	w := strings.Fields(cmd)
	if len(w) == 0 || shellOwn[w[0]] {
		return nil, false
	}
	return w, true
}

// shellOwn are the words a shell runs itself, with no program of that
// name on PATH to find (cd, source, time): only the shell can run them.
// (echo, test, pwd and friends have programs that behave the same.)
var shellOwn = map[string]bool{
	".": true, "alias": true, "bg": true, "bind": true, "builtin": true, "caller": true, "cd": true,
	"command": true, "compgen": true, "complete": true, "declare": true, "dirs": true, "disown": true,
	"enable": true, "eval": true, "exec": true, "exit": true, "export": true, "fc": true, "fg": true,
	"getopts": true, "hash": true, "help": true, "history": true, "jobs": true, "let": true,
	"local": true, "logout": true, "mapfile": true, "popd": true, "pushd": true, "read": true,
	"readarray": true, "readonly": true, "return": true, "set": true, "shift": true, "shopt": true,
	"source": true, "suspend": true, "time": true, "times": true, "trap": true, "type": true,
	"typeset": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true,
}

// shellQuote quotes s as one word for a POSIX shell, bash, zsh and fish:
// inside single quotes nothing is special but the quote itself, which is
// written as '\”. Heredocs, $(), quotes and newlines survive as they are.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// errNUL refuses commands that no shell could be given.
var errNUL = errors.New("the command contains a NUL byte, which no shell accepts")

// execLine is the command the agent runs instead of its own: `gatehouse
// exec` hands the ticket and the original command to the daemon, which
// runs it in the session's sandbox and returns its output and status. It
// names the agent, so that exec presents the token the hook did: only
// that token may run the ticket.
//
// With moves, for an agent whose shell keeps its directory from one
// command to the next (Claude Code), exec writes the directory the
// command's shell ended in to a file named by the ticket in the shell's
// temporary directory ($TMPDIR, which an agent's own sandbox leaves
// writable, else /tmp), and the line moves the agent's shell there, as the
// command would have without Gatehouse, keeping exec's status.
func execLine(exe []string, agent hookwire.Agent, ticket, cmd string, moves bool) (string, error) {
	if strings.IndexByte(cmd, 0) >= 0 {
		return "", errNUL
	}
	parts := make([]string, 0, len(exe)+9)
	for _, e := range exe {
		parts = append(parts, shellQuote(e))
	}
	parts = append(parts, "exec", "--agent", shellQuote(string(agent)), "--ticket", ticket)
	// The ticket is hex: nothing in the name needs quoting but the
	// expansion.
	f := `"${TMPDIR:-/tmp}/gatehouse-cd-` + ticket + `"`
	if moves {
		parts = append(parts, "--cd-file", f)
	}
	parts = append(parts, "--", shellQuote(cmd))
	line := strings.Join(parts, " ")
	if moves {
		// Builtins only, but for rm when the directory changed: this runs
		// around every command. A function returns the status without a
		// subshell's fork.
		line += "; __gatehouse_s=$?; if [ -f " + f + " ]; then read -r __gatehouse_d < " + f + "; rm -f " + f +
			"; cd -- \"$__gatehouse_d\" 2>/dev/null; fi; __gatehouse_status() { return \"$1\"; }; __gatehouse_status \"$__gatehouse_s\""
	}
	return line, nil
}
