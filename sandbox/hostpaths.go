package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// SystemDirs are mounted (or allowed) read-only in every sandbox so that
// ordinary tools run. Missing ones are skipped.
var SystemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store",
}

// HomeAllowlist are the files under the real $HOME (relative) that a
// sandbox's fresh $HOME shows read-only.
var HomeAllowlist = []string{".gitconfig", ".config/git"}

// homeCredentials are files inside HomeAllowlist that hold credentials in
// clear (git's credential store, which `git credential-store` uses when
// $XDG_CONFIG_HOME/git exists): never shown, though the directory holding
// them is, for its config, ignore rules and hooks.
var homeCredentials = []string{".config/git/credentials"}

// HomeGitConfigs are the allowlisted files git may read as the person's
// own config, shown with their credentials taken out
// (RedactedHomeConfigs): ~/.gitconfig and every file in ~/.config/git
// but its hooks (programs) and its credential store (hidden whole), since
// a config there may include any of the others.
func HomeGitConfigs(home string) []string {
	out := []string{filepath.Join(home, ".gitconfig")}
	dir := filepath.Join(home, ".config", "git")
	hidden := HomeCredentials(home)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // unreadable: not shown either
		case d.IsDir() && p == filepath.Join(dir, "hooks"):
			return filepath.SkipDir
		case d.Type().IsRegular() && !slices.Contains(hidden, p):
			out = append(out, p)
		}
		return nil
	})
	return out
}

// HomeCredentials are the credential files among the allowlisted ones
// under home, for a sandbox that shows the real home's files to hide.
func HomeCredentials(home string) []string {
	out := make([]string, len(homeCredentials))
	for i, rel := range homeCredentials {
		out[i] = filepath.Join(home, rel)
	}
	return out
}

// SensitiveSystemFiles are hidden even though their directory is shared:
// root's sandbox would otherwise read them. Other users cannot read them
// anyway, so for them the list is empty (and Landlock needs fewer rules).
func SensitiveSystemFiles() []string {
	if os.Geteuid() != 0 {
		return nil
	}
	out := []string{
		"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
		"/etc/sudoers", "/etc/sudoers.d", "/etc/security/opasswd",
	}
	keys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
	return append(out, keys...)
}
