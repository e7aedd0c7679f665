package protect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

// The secret list: files in a workspace that commands never read
// (bwrap and the container see them empty, Landlock cannot open them).
// It names what commonly holds credentials; the person exposes one with
// the config's [sandbox] expose_secrets or for a session.

// secretDirs are path components below which every file is a secret.
var secretDirs = map[string]bool{".ssh": true, ".aws": true, ".azure": true, ".gnupg": true, ".password-store": true}

// secretFiles are exact basenames (lower-cased).
var secretFiles = map[string]bool{
	".npmrc": true, ".pypirc": true, ".netrc": true, "_netrc": true, ".git-credentials": true,
	".pgpass": true, ".boto": true, ".s3cfg": true, ".dockercfg": true,
	"credentials.json": true, "application_default_credentials.json": true, "credentials.tfrc.json": true,
}

// secretPaths are exact trailing paths (lower-cased): a file of this
// name in a directory of this name.
var secretPaths = []string{".docker/config.json", ".kube/config", "gcloud/credentials.db", "gcloud/access_tokens.db"}

// secretExts are extensions of key and certificate files.
var secretExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true}

// fixtureDirs hold test fixtures: key and certificate files below them are
// test data (Go's TLS tests read testdata/*.pem), not credentials, so the
// sandbox leaves them readable.
var fixtureDirs = map[string]bool{"testdata": true, "fixtures": true, "__fixtures__": true, "test": true, "tests": true, "spec": true}

// privateKeyPrefixes name SSH private keys (id_ed25519, id_rsa_work);
// the .pub halves are public.
var privateKeyPrefixes = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}

// envTemplates end the names of .env files that document variables
// rather than hold them (.env.example, .env-sample).
var envTemplates = []string{"example", "sample", "template"}

// IsSecret reports whether the file at rel (slash-separated, relative
// to a workspace root) is on the secret list.
func IsSecret(rel string) bool {
	lc := strings.ToLower(rel)
	base := path.Base(lc)
	switch {
	case base == ".env":
		return true
	case isEnvVariant(base):
		for _, t := range envTemplates {
			if strings.HasSuffix(base, t) && !isNameChar(base[len(base)-len(t)-1]) {
				return false
			}
		}
		return true
	case secretFiles[base]:
		return true
	case secretExts[path.Ext(base)]:
		return !underFixtures(lc)
	}
	for _, p := range privateKeyPrefixes {
		if strings.HasPrefix(base, p) && !strings.HasSuffix(base, ".pub") {
			return true
		}
	}
	for _, p := range secretPaths {
		if lc == p || strings.HasSuffix(lc, "/"+p) {
			return true
		}
	}
	dirs := strings.Split(path.Dir(lc), "/")
	for _, d := range dirs {
		if secretDirs[d] {
			return true
		}
	}
	return false
}

// isEnvVariant: base is .env followed by a separator and more, as the
// copies people and editors leave are named (.env.local, .env.bak,
// .env-old, .env_prod, .env~, .env:2024), but not another name that
// starts alike (.envrc, .environment).
func isEnvVariant(base string) bool {
	return len(base) > len(".env") && strings.HasPrefix(base, ".env") && !isNameChar(base[len(".env")])
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// underFixtures: some directory on rel's path holds test fixtures.
func underFixtures(rel string) bool {
	for _, d := range strings.Split(path.Dir(rel), "/") {
		if fixtureDirs[d] {
			return true
		}
	}
	return false
}

// Exposure is the set of secrets the person chose to let commands read:
// patterns relative to a workspace root. A pattern with a slash matches
// the whole relative path (path.Match: *, ?, [...]); one without matches
// a file of that name anywhere; one ending in / exposes everything
// below that directory.
type Exposure struct {
	patterns []string
}

// ErrBadExposure marks an expose_secrets entry that cannot be used.
var ErrBadExposure = errors.New("bad expose_secrets entry")

// ParseExposure checks each pattern: relative, without .., and valid
// glob syntax.
func ParseExposure(patterns []string) (Exposure, error) {
	var e Exposure
	for _, p := range patterns {
		if err := checkPattern(p); err != nil {
			return Exposure{}, fmt.Errorf("%q %w", p, err)
		}
		e.patterns = append(e.patterns, p)
	}
	return e, nil
}

func checkPattern(p string) error {
	switch {
	case p == "" || strings.TrimSpace(p) != p:
		return fmt.Errorf("is empty or has surrounding spaces: %w", ErrBadExposure)
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("must be relative to the workspace root: %w", ErrBadExposure)
	case strings.ContainsRune(p, 0) || strings.Contains(p, "\\"):
		return fmt.Errorf("holds a NUL or a backslash: %w", ErrBadExposure)
	}
	for _, c := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		if c == ".." || c == "." || c == "" {
			return fmt.Errorf("must not contain empty, . or .. components: %w", ErrBadExposure)
		}
	}
	if _, err := path.Match(strings.TrimSuffix(p, "/"), ""); err != nil {
		return fmt.Errorf("is not a valid pattern (%v): %w", err, ErrBadExposure)
	}
	return nil
}

// Join is e with the patterns of o added.
func (e Exposure) Join(o Exposure) Exposure {
	return Exposure{patterns: append(append([]string(nil), e.patterns...), o.patterns...)}
}

// Patterns returns the patterns, for a layout key or a log line.
func (e Exposure) Patterns() []string { return append([]string(nil), e.patterns...) }

// Exposes reports whether the secret at rel is exposed.
func (e Exposure) Exposes(rel string) bool {
	for _, p := range e.patterns {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			// The pattern's components against as many leading ones of rel.
			n := strings.Count(dir, "/") + 1
			parts := strings.Split(rel, "/")
			if len(parts) > n {
				if m, _ := path.Match(dir, strings.Join(parts[:n], "/")); m {
					return true
				}
			}
			continue
		}
		target := rel
		if !strings.Contains(p, "/") {
			target = path.Base(rel)
		}
		if m, _ := path.Match(p, target); m {
			return true
		}
	}
	return false
}

// pemScan bounds how much of a .pem file is read to tell a key from a
// certificate.
const pemScan = 256 << 10

// publicPEM reports whether the file at path is a .pem holding no private
// key: certificates and bundles are public, and tests and tools read them.
// Anything unreadable, or with a key in it, stays a secret.
func publicPEM(path string) bool {
	if !strings.EqualFold(filepathExt(path), ".pem") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, pemScan+1))
	if err != nil || len(b) > pemScan {
		return false
	}
	return bytes.Contains(b, []byte("-----BEGIN ")) && !bytes.Contains(b, []byte("PRIVATE KEY-----"))
}

func filepathExt(p string) string { return path.Ext(p) }

// SecretPathspecs are git pathspecs that match every path IsSecret
// might accept (and more: callers filter with IsSecret), for asking git
// which secret files its history holds.
func SecretPathspecs() []string {
	var out []string
	add := func(glob string) { out = append(out, ":(glob,icase)"+glob, ":(glob,icase)**/"+glob) }
	add(".env")
	add(".env?*") // with .envrc and the like, which callers filter out
	for f := range secretFiles {
		add(f)
	}
	for _, p := range secretPaths {
		add(p)
	}
	for e := range secretExts {
		add("*" + e)
	}
	for _, p := range privateKeyPrefixes {
		add(p + "*")
	}
	for d := range secretDirs {
		add(d + "/**")
	}
	sort.Strings(out)
	return out
}
