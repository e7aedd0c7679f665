package protect

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// Redacted stands where a credential was in a git config shown to a
// sandbox.
const Redacted = "REDACTED"

// RedactGitConfig returns the person's git config (~/.gitconfig, the
// files of ~/.config/git) with the credentials people keep there taken
// out, and whether there were any: a token or password in a URL's user
// part (`url."https://TOKEN@forge/".insteadOf`, the usual way to fetch
// private Go modules), the value of any key that carries one
// (http.extraHeader, a password, a token, a secret), and one passed
// inline (a credential helper that echoes password=TOKEN). Every sandbox
// shows that config for git's identity and settings; the credentials it
// must not, since a command could print them in any encoding. Everything
// else is kept byte for byte, so git reads the same settings.
func RedactGitConfig(b []byte) ([]byte, bool) {
	lines := bytes.SplitAfter(b, []byte("\n"))
	changed := false
	for i, line := range lines {
		s := string(line)
		out := urlUserinfo().ReplaceAllStringFunc(s, redactUserinfo)
		out = inlineSecret().ReplaceAllString(out, "${1}="+Redacted)
		if k, _, ok := strings.Cut(out, "="); ok && !strings.HasPrefix(strings.TrimSpace(out), "[") && secretKey(strings.TrimSpace(k)) {
			eol := out[len(strings.TrimRight(out, "\r\n")):]
			out = k + "= " + Redacted + eol
		}
		if out != s {
			lines[i], changed = []byte(out), true
		}
	}
	if !changed {
		return b, false
	}
	return bytes.Join(lines, nil), true
}

// urlUserinfo finds a URL's user part: scheme://USERINFO@.
var urlUserinfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/@"']+@`)
})

// inlineSecret finds a credential passed inline in a value, as a
// credential helper written as a shell function does (echo
// password=TOKEN).
var inlineSecret = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(password|passwd|token|secret)=([^\s;'"]+)`)
})

// redactUserinfo keeps a URL's user name and takes out its password; a
// user part with no password is taken out when it is long enough to be
// a token rather than a name (git, alice, oauth2).
func redactUserinfo(m string) string {
	scheme, rest, _ := strings.Cut(m, "://")
	info := strings.TrimSuffix(rest, "@")
	if user, _, ok := strings.Cut(info, ":"); ok {
		return scheme + "://" + user + ":" + Redacted + "@"
	}
	if len(info) >= 20 {
		return scheme + "://" + Redacted + "@"
	}
	return m
}

// secretKey reports whether a git config key (its last part, any case)
// carries a credential as its value.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		k = k[i+1:]
	}
	if k == "extraheader" {
		return true
	}
	for _, w := range []string{"password", "passwd", "pass", "token", "secret"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}
