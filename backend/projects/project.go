package projects

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/sentence"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Of is the project an agent working in dir works in: the top of its git
// work tree (the nearest ancestor holding .git, a repository or a
// worktree's file), or dir itself when it is in none. Symlinks resolve, so
// a linked project is its target. The search stops below home: a home
// directory kept in git (dotfiles) is not every project's top.
func Of(dir, home string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
			return "", fmt.Errorf("the agent's directory %s is not a directory", dir)
		}
	}
	if err != nil {
		return "", dirError("the agent's directory", dir, err)
	}
	for d := real; ; d = filepath.Dir(d) {
		if d == home || d == filepath.Dir(d) {
			return real, nil
		}
		if isGitTop(d) {
			return d, nil
		}
	}
}

// isGitTop reports whether d holds a git repository's .git: a worktree's
// or submodule's file, or a directory with a HEAD. An empty .git is not
// one (git says so too): Codex's own sandbox leaves such mount targets in
// its writable roots (/tmp among them) when it is stopped mid-command,
// and every project below would otherwise become that root.
func isGitTop(d string) bool {
	fi, err := os.Lstat(filepath.Join(d, ".git"))
	switch {
	case err != nil:
		return false
	case !fi.IsDir():
		return true
	}
	_, err = os.Lstat(filepath.Join(d, ".git", "HEAD"))
	return err == nil
}

// dirError says why dir (named as what: "the agent's directory") cannot
// be found, as a sentence without the system call's words.
func dirError(what, dir string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return sentence.New(fmt.Sprintf("%s %s does not exist", what, dir), err)
	}
	why := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err
	}
	return sentence.New(fmt.Sprintf("Gatehouse cannot reach %s %s: %v", what, dir, why), err)
}

// ErrTooBroad refuses a project no card may allow.
var ErrTooBroad = errors.New("too broad a workspace")

// systemDirs hand an agent the machine, not a project.
var systemDirs = map[string]bool{
	"/": true, "/etc": true, "/usr": true, "/bin": true, "/sbin": true, "/lib": true, "/lib64": true, "/var": true,
	"/boot": true, "/proc": true, "/sys": true, "/dev": true, "/opt": true, "/home": true, "/root": true, "/tmp": true,
	"/Users": true, "/Library": true, "/System": true, "/private": true,
}

// Refuse says why a project may not be a workspace at all (nil when it
// may): the system's directories, the home directory or one holding it
// (HOME's secrets would be the agent's to change), one of those secrets'
// places or one holding or inside one (~/.ssh, ~/.config holding
// ~/.config/gh), or one that holds or sits in Gatehouse's data directory
// (its tokens).
func Refuse(project, home, dataDir string) error {
	if home != "" && workspace.InsideAny(home, []string{project}) {
		return fmt.Errorf("%w: %s holds your home directory and its secrets (~/.ssh, cloud credentials); start the agent in a project directory", ErrTooBroad, project)
	}
	if s := sandbox.SecretInside(project, home); s != "" {
		return fmt.Errorf("%w: working in %s would hand the agent %s, where credentials or history live; start the agent in a project directory", ErrTooBroad, project, s)
	}
	switch {
	case systemDirs[project]:
		return fmt.Errorf("%w: %s is a system directory; start the agent in a project directory", ErrTooBroad, project)
	case dataDir != "" && (workspace.InsideAny(dataDir, []string{project}) || workspace.InsideAny(project, []string{dataDir})):
		return fmt.Errorf("%w: %s overlaps Gatehouse's data directory %s, which holds its tokens", ErrTooBroad, project, dataDir)
	}
	return nil
}
