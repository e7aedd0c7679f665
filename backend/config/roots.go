package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
)

// RootsFile edits the [workspaces] roots of a config file in place: the
// rest of the file, comments included, stays as the person wrote it.
type RootsFile struct{ Path string }

// AddRoot adds root to the roots (once).
func (f RootsFile) AddRoot(root string) error {
	return f.edit(func(roots []string) []string {
		if slices.Contains(roots, root) {
			return roots
		}
		return append(roots, root)
	})
}

// RemoveRoot drops root from the roots.
func (f RootsFile) RemoveRoot(root string) error {
	return f.edit(func(roots []string) []string {
		return slices.DeleteFunc(roots, func(r string) bool { return r == root })
	})
}

func (f RootsFile) edit(change func([]string) []string) error {
	b, err := os.ReadFile(f.Path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read the config file %s: %w", f.Path, err)
	}
	cfg, err := Parse(b, f.Path)
	if err != nil {
		return err
	}
	roots := change(slices.Clone(cfg.Workspaces.Roots))
	out, err := setRoots(string(b), roots)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	if _, err := Parse([]byte(out), f.Path); err != nil {
		return fmt.Errorf("the edited config would not read back, so it was left as it was: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(f.Path, []byte(out), 0o600)
}

// setRoots rewrites the roots assignment of the [workspaces] table, or
// appends the table when the file has none.
func setRoots(text string, roots []string) (string, error) {
	quoted := make([]string, len(roots))
	for i, r := range roots {
		// JSON's string escapes are TOML basic-string escapes.
		b, _ := json.Marshal(r)
		quoted[i] = string(b)
	}
	line := "roots = [" + strings.Join(quoted, ", ") + "]"
	lines := strings.SplitAfter(text, "\n")
	table := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "[workspaces]" {
			table = i
			continue
		}
		if table < 0 {
			continue
		}
		if strings.HasPrefix(t, "[") {
			// The table has no roots yet: add them first in it.
			return strings.Join(slices.Insert(lines, table+1, line+"\n"), ""), nil
		}
		if key, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(key) == "roots" {
			end := i
			for depth := brackets(lines[i]); depth > 0; {
				end++
				if end == len(lines) {
					return "", errors.New("its [workspaces] roots list does not close")
				}
				depth += brackets(lines[end])
			}
			nl := "\n"
			if !strings.HasSuffix(lines[end], "\n") {
				nl = ""
			}
			return strings.Join(slices.Replace(lines, i, end+1, line+nl), ""), nil
		}
	}
	if table >= 0 {
		return strings.Join(slices.Insert(lines, table+1, line+"\n"), ""), nil
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + "[workspaces]\n" + line + "\n", nil
}

// brackets is the net count of [ over ] outside strings and comments.
func brackets(line string) int {
	n := 0
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return n
		case c == '[':
			n++
		case c == ']':
			n--
		}
	}
	return n
}
