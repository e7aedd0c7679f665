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

// listFile edits one list of strings (key in [table]) of a config file in
// place: the rest of the file, comments included, stays as the person
// wrote it, and an edit that would not read back is not written.
type listFile struct {
	path, table, key string
	// get is the list as the config reads it now.
	get func(Config) []string
}

// add adds v to the list (once).
func (f listFile) add(v string) error {
	return f.edit(func(list []string) []string {
		if slices.Contains(list, v) {
			return list
		}
		return append(list, v)
	})
}

// remove drops v from the list.
func (f listFile) remove(v string) error {
	return f.edit(func(list []string) []string {
		return slices.DeleteFunc(list, func(x string) bool { return x == v })
	})
}

func (f listFile) edit(change func([]string) []string) error {
	b, err := os.ReadFile(f.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read the config file %s: %w", f.path, err)
	}
	cfg, err := Parse(b, f.path)
	if err != nil {
		return err
	}
	out, err := setList(string(b), f.table, f.key, change(slices.Clone(f.get(cfg))))
	if err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if _, err := Parse([]byte(out), f.path); err != nil {
		return fmt.Errorf("the edited config would not read back, so it was left as it was: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(f.path, []byte(out), 0o600)
}

// setList rewrites the key's assignment in [table], or adds it there, or
// appends the table when the file has none.
func setList(text, table, key string, values []string) (string, error) {
	quoted := make([]string, len(values))
	for i, r := range values {
		// JSON's string escapes are TOML basic-string escapes.
		b, _ := json.Marshal(r)
		quoted[i] = string(b)
	}
	line := key + " = [" + strings.Join(quoted, ", ") + "]"
	lines := strings.SplitAfter(text, "\n")
	at := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "["+table+"]" {
			at = i
			continue
		}
		if at < 0 {
			continue
		}
		if strings.HasPrefix(t, "[") {
			// The table has no such key yet: add it first in it.
			return strings.Join(slices.Insert(lines, at+1, line+"\n"), ""), nil
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
			end := i
			for depth := brackets(lines[i]); depth > 0; {
				end++
				if end == len(lines) {
					return "", fmt.Errorf("its [%s] %s list does not close", table, key)
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
	if at >= 0 {
		return strings.Join(slices.Insert(lines, at+1, line+"\n"), ""), nil
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + "[" + table + "]\n" + line + "\n", nil
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
