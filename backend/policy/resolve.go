package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFound is returned by ResolveBinary when no executable matches.
var ErrNotFound = errors.New("executable not found")

// ResolveBinary turns argv[0] into the absolute path that would run, so a
// rule about /usr/bin/git never matches ./git. A name with a slash resolves
// against cwd; a bare name is searched in pathEnv, skipping empty and relative
// entries (a PATH containing "." must not turn git into ./git). Symlinks are
// kept as named, so /usr/bin/python3 stays /usr/bin/python3.
func ResolveBinary(argv0, pathEnv, cwd string) (string, error) {
	if argv0 == "" {
		return "", fmt.Errorf("the command is empty; send argv with the program first: %w", ErrNotFound)
	}
	if strings.ContainsRune(argv0, '/') {
		p := argv0
		if !filepath.IsAbs(p) {
			if !filepath.IsAbs(cwd) {
				return "", fmt.Errorf("cannot resolve %q without an absolute working directory: %w", argv0, ErrNotFound)
			}
			p = filepath.Join(cwd, p)
		}
		p = filepath.Clean(p)
		if err := executable(p); err != nil {
			return "", fmt.Errorf("%s is not an executable file: %w", p, err)
		}
		return p, nil
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, argv0)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %q was not found on PATH; give its full path: %w", argv0, ErrNotFound)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrNotFound
		}
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ErrNotFound
	}
	return nil
}
