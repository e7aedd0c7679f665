package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestReadmeLayoutListsEveryPackage keeps the README's Layout table a true
// map of the code: every directory holding Go files is named there, and
// every path it names exists.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := layoutSection(string(readme))
	if section == "" {
		t.Fatal("README.md has no \"## Layout\" section")
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z][a-z0-9_./-]*)`").FindAllStringSubmatch(section, -1) {
		listed[strings.TrimSuffix(m[1], "/")] = true
	}
	var missing []string
	for _, dir := range goPackageDirs(t) {
		if !listed[dir] {
			missing = append(missing, dir)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("README.md's Layout table does not name these packages; add a row (or add them to a row) saying what lives there:\n%s", strings.Join(missing, "\n"))
	}
	for p := range listed {
		if !strings.Contains(p, "/") && !strings.HasSuffix(p, ".go") {
			continue // a word in code type (`doctor`), or a top-level package named alone
		}
		if _, err := os.Stat(filepath.FromSlash(p)); err != nil {
			t.Errorf("README.md's Layout table names %s, which does not exist", p)
		}
	}
}

// layoutSection is the README's text from "## Layout" to the next heading
// of the same level.
func layoutSection(readme string) string {
	_, after, ok := strings.Cut(readme, "\n## Layout\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	return after
}

// goPackageDirs lists the module's directories that hold non-test Go
// files, as slash paths, leaving out what the build leaves out.
func goPackageDirs(t *testing.T) []string {
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
				seen[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	return out
}
