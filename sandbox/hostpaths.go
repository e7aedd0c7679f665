package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
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
// a config there may include any of the others, and the files in the
// home those include (HomeGitIncludes).
func HomeGitConfigs(home string) []string {
	return readHomeGit(home).configs
}

// HomeGitIncludes are the files in home, beside HomeAllowlist, that the
// person's git config includes (a ~/.gitconfig.local, or an includeIf's
// ~/.gitconfig-work with the name and email for work repositories):
// shown like the config, read-only and without credentials, so a commit
// in a sandbox has the name it has on the host. Not one holding or in a
// secret place.
func HomeGitIncludes(home string) []string {
	return readHomeGit(home).includes
}

// HomeGitExtras are the files in the home, beside HomeAllowlist, that git
// reads because the person's config names them: the configs it includes
// (HomeGitIncludes), and the files it names for git to read by itself
// (core.excludesFile's ignore rules, which `git add -A` obeys, the
// attributes, a commit template, and core.hooksPath's hooks, which then
// run inside the sandbox as on the host). Shown read-only where they are.
func HomeGitExtras(home string) []string {
	return readHomeGit(home).extras
}

// HomeGitBool is the person's global git setting key (lower-case, as
// "commit.gpgsign"), read as git reads a boolean.
func HomeGitBool(home, key string) bool {
	return protect.ReadGlobalConfig(homeGitBase(home), home).Bool(key)
}

// homeGit is what a sandbox's home shows of the person's git, each of
// their files read once.
type homeGit struct {
	// configs are HomeGitConfigs; includes and extras, HomeGitIncludes
	// and HomeGitExtras.
	configs, includes, extras []string
	read                      protect.GlobalConfig
}

func readHomeGit(home string) homeGit {
	base := homeGitBase(home)
	g := homeGit{read: protect.ReadGlobalConfig(base, home)}
	g.includes = slices.DeleteFunc(g.read.Includes(), func(p string) bool { return !showableHomeFile(p, home) })
	g.configs = append(base, g.includes...)
	named := slices.DeleteFunc(g.read.NamedFiles(), func(p string) bool {
		return !showableHomeFile(p, home) || slices.Contains(g.includes, p)
	})
	g.extras = append(slices.Clip(g.includes), named...)
	return g
}

// showableHomeFile: p is a file or directory in home that a sandbox may
// show, neither holding nor inside a secret place, outside HomeAllowlist
// (shown already).
func showableHomeFile(p, home string) bool {
	if !WithinClean(p, home) || p == home || SecretInside(p, home) != "" || slices.Contains(HomeCredentials(home), p) || underAllowlist(p, home) {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && (st.Mode().IsRegular() || st.IsDir())
}

// underAllowlist: p is shown already, as one of HomeAllowlist's.
func underAllowlist(p, home string) bool {
	for _, rel := range HomeAllowlist {
		if WithinClean(p, filepath.Join(home, rel)) {
			return true
		}
	}
	return false
}

// homeGitBase: ~/.gitconfig and the files of ~/.config/git (see
// HomeGitConfigs).
func homeGitBase(home string) []string {
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
