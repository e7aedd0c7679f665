package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
)

// appendMu serialises AppendRule inside this process; fileLock covers other
// processes (the CLI and the daemon may both write).
var appendMu sync.Mutex

const newFileHeader = "# Gatehouse policy. Rules added by \"always allow\" are appended below.\n"

// AppendRule adds r as a new [[rule]] table at the end of the user's policy
// file, leaving everything already there (comments, layout) byte for byte.
// The new content must load, or the file is left untouched. The write is
// atomic: a temporary file in the same directory is renamed over the old one.
func AppendRule(userPath string, r Rule) error {
	if err := r.compile(""); err != nil {
		return fmt.Errorf("the rule is not valid: %w", err)
	}
	appendMu.Lock()
	defer appendMu.Unlock()

	target := userPath
	if resolved, err := filepath.EvalSymlinks(userPath); err == nil {
		target = resolved // keep a dotfiles symlink pointing at the real file
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the policy directory %s: %w", dir, err)
	}
	unlock, err := lockFile(target + ".lock")
	if err != nil {
		return fmt.Errorf("cannot lock the policy file %s: %w", target, err)
	}
	defer unlock()

	mode := fs.FileMode(0o600)
	old, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = []byte(newFileHeader)
	case err != nil:
		return fmt.Errorf("cannot read the policy file %s: %w", target, err)
	default:
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	buf := make([]byte, 0, len(old)+256)
	buf = append(buf, old...)
	if len(buf) > 0 && buf[len(buf)-1] != '\n' {
		buf = append(buf, '\n')
	}
	buf = append(buf, '\n')
	buf = append(buf, r.String()...)
	if _, _, err := parseUser(buf, target); err != nil {
		return fmt.Errorf("the policy file would not load with the new rule, so it was not changed: %w", err)
	}
	return writeAtomic(target, buf, mode)
}

func writeAtomic(target string, data []byte, mode fs.FileMode) error {
	if err := atomicfile.Write(target, data, mode); err != nil {
		return fmt.Errorf("cannot write the policy file %s: %w", target, err)
	}
	return nil
}

// WriteUserFile replaces the user's policy file with data after checking
// that it loads, under the same locks as AppendRule.
func WriteUserFile(userPath string, data []byte) error {
	if err := ValidateUserFile(data, filepath.Base(userPath)); err != nil {
		return err
	}
	appendMu.Lock()
	defer appendMu.Unlock()
	target := userPath
	if resolved, err := filepath.EvalSymlinks(userPath); err == nil {
		target = resolved
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fmt.Errorf("cannot create the policy directory: %w", err)
	}
	unlock, err := lockFile(target + ".lock")
	if err != nil {
		return fmt.Errorf("cannot lock the policy file %s: %w", target, err)
	}
	defer unlock()
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	return writeAtomic(target, data, mode)
}

// ParseRule reads one [[rule]] table, as the person edited it on a card
// before saving it "always". It must be exactly one valid allow rule.
func ParseRule(text string) (Rule, error) {
	_, rules, err := parseUser([]byte(text), "the edited rule")
	switch {
	case err != nil:
		return Rule{}, err
	case len(rules) != 1:
		return Rule{}, fmt.Errorf("the edited rule must be exactly one [[rule]] table, not %d", len(rules))
	case rules[0].Action != Allow:
		return Rule{}, errors.New(`an "always allow" rule must have action = "allow"`)
	}
	return rules[0], nil
}
