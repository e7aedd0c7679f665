package wssecrets

import (
	"bytes"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/gatehouse-dev/gatehouse/backend/secrets"
)

// MinValueLen is the shortest workspace value redacted: a .env holds
// ports, flags and names (1, true, mysql), and redacting those would
// shred ordinary output.
const MinValueLen = 8

// Parse returns the secret values of the file at rel (slash-separated,
// relative to its workspace root) whose text is b, each named
// "rel:KEY" for the marker ([REDACTED:.env:API_KEY]). The kind comes
// from the content first (a private key block, a JSON document), then
// the name; anything else is read as KEY=value or KEY: value lines.
func Parse(rel string, b []byte) []secrets.Value {
	var out []secrets.Value
	add := func(key, v string) {
		v = strings.TrimSpace(v)
		if len(v) >= MinValueLen {
			out = append(out, secrets.Value{Name: rel + ":" + key, Value: v})
		}
	}
	if bytes.Contains(b, []byte("-----BEGIN ")) && bytes.Contains(b, []byte("PRIVATE KEY")) {
		// A key file, or a key quoted into a .env beside other values.
		pemValues(b, add)
	}
	switch {
	case strings.HasSuffix(strings.ToLower(path.Base(rel)), ".json") || startsJSON(b):
		jsonValues(b, add)
	default:
		lineValues(b, add)
	}
	return out
}

// pemValues adds each body line of every private key block: a key
// reaches output line by line (a diff prefixes each with +), so whole
// lines are what can be found.
func pemValues(b []byte, add func(key, v string)) {
	in, label := false, ""
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(diffLine(l))
		switch {
		case strings.HasPrefix(l, "-----BEGIN ") && strings.Contains(l, "PRIVATE KEY"):
			in, label = true, strings.Trim(strings.TrimPrefix(l, "-----BEGIN "), "- ")
		case strings.HasPrefix(l, "-----END "):
			in = false
		case in && !strings.Contains(l, ":"): // not a Proc-Type header
			add(label, l)
		}
	}
}

func startsJSON(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// jsonPair finds "key": "value" with the value as written (escapes and
// all): that is how it appears when the file itself is printed.
var jsonPair = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"`) })

// jsonValues adds string values that are secret by their key or look
// random; a value holding an escaped private key adds its lines too.
func jsonValues(b []byte, add func(key, v string)) {
	for _, m := range jsonPair().FindAllSubmatch(b, -1) {
		key, v := string(m[1]), string(m[2])
		if !secretKey(key) && !looksRandom(v) {
			continue
		}
		add(key, v)
		if strings.Contains(v, `\n`) {
			for _, l := range strings.Split(v, `\n`) {
				if !strings.HasPrefix(l, "-----") {
					add(key, l)
				}
			}
		}
	}
}

// lineValues reads dotenv (KEY=value, export KEY=, quoted values with #
// comments after them), KEY: value (YAML-like configs, kube config),
// netrc's "password X", and URLs with a password (.git-credentials, a
// DATABASE_URL), taking the values that are secret by key or look it.
func lineValues(b []byte, add func(key, v string)) {
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(diffLine(strings.TrimRight(l, "\r")))
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";") {
			continue
		}
		for _, v := range urlPasswords(l) {
			add("password", v)
		}
		if f := strings.Fields(l); len(f) >= 2 && (f[0] == "machine" || f[0] == "default") {
			for i := 0; i+1 < len(f); i++ {
				if f[i] == "password" || f[i] == "account" {
					add(f[i], f[i+1])
				}
			}
			continue
		}
		key, v, ok := cutAssignment(l)
		if !ok {
			continue
		}
		v = unquote(v)
		if secretKey(key) || !plainValue(v) {
			add(key, v)
		}
	}
}

// diffLine drops the + or - a diff line of history starts with (not
// the dashes of a PEM armour line).
func diffLine(l string) string {
	if strings.HasPrefix(l, "-----") {
		return l
	}
	return strings.TrimPrefix(strings.TrimPrefix(l, "+"), "-")
}

// cutAssignment splits KEY=value or KEY: value (export dropped); an
// npmrc key (//host/:_authToken=) holds a colon, so it splits at =.
func cutAssignment(l string) (key, v string, ok bool) {
	l = strings.TrimPrefix(l, "export ")
	i := strings.IndexAny(l, "=:")
	if strings.HasPrefix(l, "//") {
		i = strings.IndexByte(l, '=')
	}
	if i <= 0 {
		return "", "", false
	}
	key = strings.TrimSpace(l[:i])
	if strings.ContainsAny(key, " \t\"'") && !strings.HasPrefix(key, "//") {
		return "", "", false
	}
	return key, strings.TrimSpace(l[i+1:]), true
}

// unquote takes a value out of its quotes, or cuts a trailing comment
// off a bare one.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'' || v[0] == '`') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : 1+end]
		}
		return v[1:]
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// secretKey: the name says credential (LooksSecret, with - and . read
// as _: client-key-data, _authToken).
func secretKey(k string) bool {
	k = strings.NewReplacer("-", "_", ".", "_", "/", "_").Replace(strings.Trim(k, `"' `))
	return secrets.LooksSecret(k)
}

// plainValue: configuration rather than a credential, when the key does
// not say otherwise: words (production, localhost), numbers, booleans,
// paths, and URLs without a password. Anything with digits mixed into
// letters, or symbols, counts as possibly secret.
func plainValue(v string) bool {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~/") {
		return true
	}
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		_, hasPass := u.User.Password()
		return !hasPass
	}
	for _, r := range v {
		if !(unicode.IsLetter(r) || r == ' ' || r == '-' || r == '_' || r == '.') {
			return isNumber(v)
		}
	}
	return true
}

func isNumber(v string) bool {
	for _, r := range v {
		if !unicode.IsDigit(r) && r != '.' && r != '-' {
			return false
		}
	}
	return true
}

// looksRandom: a long run of letters and digits, as keys and tokens are.
func looksRandom(v string) bool {
	if len(v) < 20 || strings.ContainsAny(v, " \t") {
		return false
	}
	var letter, digit bool
	for _, r := range v {
		letter = letter || unicode.IsLetter(r)
		digit = digit || unicode.IsDigit(r)
	}
	return letter && digit
}

// urlPattern finds scheme://user:password@ in a line.
var urlPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/@:]*:([^\s/@]+)@`) })

func urlPasswords(l string) []string {
	var out []string
	for _, m := range urlPattern().FindAllStringSubmatch(l, -1) {
		out = append(out, m[1])
		if p, err := url.PathUnescape(m[1]); err == nil && p != m[1] {
			out = append(out, p)
		}
	}
	return out
}
