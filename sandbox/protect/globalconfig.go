package protect

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// GlobalIncludes are the files that the git config files named include
// (include.path, and includeIf.*.path whatever its condition: git may
// read any of them), and what those include in turn, each as git names
// it: a leading ~/ is home, a relative path lies beside the including
// file. Only files there that git can read as config are listed (a file
// of another kind named by mistake is no config to show); the files
// named themselves are not.
func GlobalIncludes(files []string, home string) []string {
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
	}
	var out []string
	var read func(f string, depth int) bool
	read = func(f string, depth int) bool {
		if depth > maxIncludeDepth {
			return false // git refuses the whole config
		}
		vars, ok := readConfig(f)
		if !ok {
			return false
		}
		for _, v := range vars {
			section, key := splitVar(v.Name)
			if key != "path" || !v.HasValue || (section != "include" && !strings.HasPrefix(section, "includeif.")) {
				continue
			}
			inc := expandHome(v.Value, home)
			if inc == "" {
				continue
			}
			if !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(f), inc)
			}
			inc = filepath.Clean(inc)
			if seen[inc] {
				continue
			}
			seen[inc] = true
			at := len(out)
			out = append(out, inc)
			if !read(inc, depth+1) {
				out = slices.Delete(out, at, at+1)
			}
		}
		return true
	}
	for _, f := range files {
		read(f, 0)
	}
	return out
}

// namedFileKeys are the settings that name a file git reads by itself:
// ignore rules, attributes, the commit message template, and the
// directory of the person's own hooks (a secret scanner run before each
// commit, say), which a sandbox's git runs inside it as the host's git
// would.
var namedFileKeys = []string{"core.excludesfile", "core.attributesfile", "commit.template", "core.hookspath"}

// GlobalNamedFiles are the files the git config files named (the
// person's global ones, with their includes) name in namedFileKeys,
// absolute or under ~/.
func GlobalNamedFiles(files []string, home string) []string {
	var out []string
	for _, f := range files {
		vars, _ := readConfig(f)
		for _, v := range vars {
			if !v.HasValue || !slices.Contains(namedFileKeys, v.Name) {
				continue
			}
			if p := expandHome(v.Value, home); filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
				out = append(out, filepath.Clean(p))
			}
		}
	}
	return out
}

// AbsoluteIncludes returns git config b, read from file, with each
// include's path made absolute (a leading ~/ as home, a relative one
// beside file), each file namedFileKeys name under ~/ too, and each
// includeIf "gitdir:~/…" condition made absolute, so that git reads the
// same files under another $HOME (a container's).
// A line it cannot rewrite alone (a section and its path on one line, a
// continued value) stays as it is; a config git could not parse is
// returned unchanged.
func AbsoluteIncludes(b []byte, file, home string) []byte {
	vars, err := parseGitConfig(b)
	if err != nil || home == "" {
		return b
	}
	lines := strings.SplitAfter(string(b), "\n")
	for _, v := range vars {
		section, key := splitVar(v.Name)
		include := key == "path" && (section == "include" || strings.HasPrefix(section, "includeif."))
		named := slices.Contains(namedFileKeys, v.Name) && strings.HasPrefix(v.Value, "~/")
		if !v.HasValue || (!include && !named) || v.Line < 1 || v.Line > len(lines) {
			continue
		}
		line := lines[v.Line-1]
		body := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(strings.TrimSpace(body), "[") || strings.HasSuffix(body, "\\") {
			continue
		}
		p := expandHome(v.Value, home)
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		name, _, _ := strings.Cut(strings.TrimSpace(body), "=")
		lines[v.Line-1] = "\t" + strings.TrimSpace(name) + " = " + quoteGitValue(filepath.Clean(p)) + line[len(body):]
	}
	out := strings.Join(lines, "")
	return []byte(homeCondition().ReplaceAllString(out, "${1}"+strings.ReplaceAll(home, "$", "$$")+"/"))
}

// homeCondition finds an includeIf condition on a path under ~/.
var homeCondition = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^(\s*\[includeif\s+"gitdir(?:/i)?:)~/`)
})

// quoteGitValue quotes s as a git config value.
func quoteGitValue(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// GlobalBool is boolean setting key (lower-case, as "commit.gpgsign") as
// the config files named, read in order, leave it: the last one wins,
// as in git. A value git reads as false, or none at all, is false.
func GlobalBool(files []string, key string) bool {
	on := false
	for _, f := range files {
		vars, _ := readConfig(f)
		for _, v := range vars {
			if v.Name != key {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(v.Value)) {
			case "true", "yes", "on", "1":
				on = true
			case "":
				on = !v.HasValue // "key" alone is true; "key =" is false
			default:
				on = false
			}
		}
	}
	return on
}

// readConfig is config file f's assignments; false when it is missing or
// git could not parse it (git refuses such a file whole).
func readConfig(f string) ([]gitVar, bool) {
	b, err := readSmall(f)
	if err != nil {
		return nil, false
	}
	vars, err := parseGitConfig(b)
	return vars, err == nil
}
