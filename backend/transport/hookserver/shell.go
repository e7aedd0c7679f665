package hookserver

import (
	"errors"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// simpleWords splits a shell command into words when the shell would do
// nothing to it but split on blanks: no quoting, expansion, redirection,
// operators or comments. Such a command runs the same as an argv, and
// policy can judge the program it names (git status) rather than "a shell".
func simpleWords(cmd string) ([]string, bool) {
	if strings.ContainsAny(cmd, "|&;<>()$`\\\"'*?[]#~=%!{}\n\r") {
		return nil, false
	}
	w := strings.Fields(cmd)
	return w, len(w) > 0
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
func execLine(exe []string, agent hookwire.Agent, ticket, cmd string) (string, error) {
	if strings.IndexByte(cmd, 0) >= 0 {
		return "", errNUL
	}
	parts := make([]string, 0, len(exe)+7)
	for _, e := range exe {
		parts = append(parts, shellQuote(e))
	}
	parts = append(parts, "exec", "--agent", shellQuote(string(agent)), "--ticket", ticket, "--", shellQuote(cmd))
	return strings.Join(parts, " "), nil
}
