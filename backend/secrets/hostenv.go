package secrets

import "strings"

// MinHostSecretLen is the shortest host environment value treated as a
// secret; shorter values (flags, small numbers) would redact ordinary text.
const MinHostSecretLen = 8

// notSecretNames look secret by name but hold configuration, not credentials.
var notSecretNames = map[string]bool{
	"AWS_REGION": true, "AWS_DEFAULT_REGION": true, "AWS_PROFILE": true, "AWS_DEFAULT_PROFILE": true,
	"AWS_CONFIG_FILE": true, "AWS_SHARED_CREDENTIALS_FILE": true, "AWS_SDK_LOAD_CONFIG": true,
	"AWS_PAGER": true, "AWS_DEFAULT_OUTPUT": true, "AWS_CA_BUNDLE": true, "AWS_EXECUTION_ENV": true,
	"SSH_AUTH_SOCK": true, "GPG_AGENT_INFO": true, "KEYTIMEOUT": true,
}

// LooksSecret reports whether an environment variable name suggests a
// credential: it contains TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE,
// CREDENTIAL, PRIVATE or APIKEY, has a KEY, PAT, DSN or AUTH word (or a short
// word ending in KEY), or starts with AWS_.
func LooksSecret(name string) bool {
	n := strings.ToUpper(name)
	if notSecretNames[n] {
		return false
	}
	for _, suffix := range []string{"_FILE", "_PATH", "_DIR", "_SOCK", "_URL_PATH"} {
		if strings.HasSuffix(n, suffix) {
			return false
		}
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "APIKEY"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	if strings.HasPrefix(n, "AWS_") {
		return true
	}
	for _, w := range strings.Split(n, "_") {
		if w == "KEY" || w == "PAT" || w == "DSN" || w == "AUTH" || strings.HasSuffix(w, "KEY") && len(w) <= 8 {
			return true
		}
	}
	return false
}

// ValueLooksSecret reports whether an environment variable's value holds
// a credential whatever its name: a URL with a password in it
// (DATABASE_URL=postgres://app:PASSWORD@db/app, REDIS_URL, a proxy's).
func ValueLooksSecret(v string) bool {
	for {
		i := strings.Index(v, "://")
		if i < 0 {
			return false
		}
		v = v[i+3:]
		end := strings.IndexAny(v, "/?# \t")
		if end < 0 {
			end = len(v)
		}
		if at := strings.LastIndexByte(v[:end], '@'); at > 0 {
			if _, pass, ok := strings.Cut(v[:at], ":"); ok && pass != "" {
				return true
			}
		}
	}
}

// HostSecrets picks the secret-looking variables out of environ (as from
// os.Environ) whose values are at least MinHostSecretLen long and not file
// paths.
func HostSecrets(environ []string) []Value {
	var out []Value
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || len(val) < MinHostSecretLen || !LooksSecret(name) {
			continue
		}
		if strings.HasPrefix(val, "/") || strings.HasPrefix(val, "~/") {
			continue // a path to a credential, not the credential
		}
		out = append(out, Value{Name: name, Value: val})
	}
	return out
}
