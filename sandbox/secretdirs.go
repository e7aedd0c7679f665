package sandbox

import (
	"os"
	"path/filepath"
	"sync/atomic"
)

// HomeSecrets are the places under $HOME (relative) where credentials,
// history and browser profiles live. No directory that contains one of
// them, or lies inside one, is ever exposed to a sandbox, whatever a
// toolchain or a read_only setting asks for.
var HomeSecrets = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".oci", ".kube", ".docker",
	".netrc", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".git-credentials",
	".vault-token", ".password-store", ".s3cfg", ".boto", ".databrickscfg",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".terraform.d", ".m2/settings.xml", ".gradle/gradle.properties", ".ivy2/.credentials",
	".config/git/credentials", ".config/gh", ".config/hub", ".config/gcloud", ".config/op", ".config/rclone",
	".config/doctl", ".config/gatehouse", ".local/share/keyrings",
	".bash_history", ".zsh_history", ".history", ".sh_history", ".python_history",
	".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history",
	".lesshst", ".local/share/fish", ".zsh_sessions",
	".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium",
	".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi", ".config/opera",
	"snap", "Library",
}

// SecretInside returns the first secret place (absolute) that exposing
// dir would reveal: one inside dir, dir itself, or one that contains
// dir. dir and home are absolute and clean; "" means none. $HOME itself
// and its ancestors always reveal something.
func SecretInside(dir, home string) string {
	if home == "" {
		return ""
	}
	// Secrets that do not exist yet count too (they may appear later);
	// one that exists makes the clearer example.
	first := ""
	for _, s := range homeSecretPaths(home) {
		if !WithinClean(s, dir) && !WithinClean(dir, s) {
			continue
		}
		if _, err := os.Lstat(s); err == nil {
			return s
		}
		if first == "" {
			first = s
		}
	}
	if first == "" && WithinClean(home, dir) {
		return home
	}
	return first
}

// lastHomeSecrets is HomeSecrets joined to the home asked last: a
// command's layout asks for the same home several times.
var lastHomeSecrets atomic.Pointer[homeSecretSet]

type homeSecretSet struct {
	home  string
	paths []string
}

// homeSecretPaths are HomeSecrets under home, absolute.
func homeSecretPaths(home string) []string {
	if c := lastHomeSecrets.Load(); c != nil && c.home == home {
		return c.paths
	}
	c := &homeSecretSet{home: home, paths: make([]string, len(HomeSecrets))}
	for i, rel := range HomeSecrets {
		c.paths[i] = filepath.Join(home, rel)
	}
	lastHomeSecrets.Store(c)
	return c.paths
}
