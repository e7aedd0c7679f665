package protect

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// GlobalConfig is the person's global git config as git reads it: the
// files named (~/.gitconfig, the files of ~/.config/git), then those they
// include (include.path, and includeIf.*.path whatever its condition: git
// may read any of them) and so on, each read once. An include is a path
// as git names it: a leading ~/ is home, a relative path lies beside the
// including file.
type GlobalConfig struct {
	home  string
	files []configFile
	named int // files[:named] were named; the rest were included
}

// configFile is one file of a GlobalConfig: its content (nil when it
// could not be read) and its assignments (nil when git could not parse
// it, as an ignore file beside the config).
type configFile struct {
	path string
	data []byte
	vars []gitVar
}

// ReadGlobalConfig reads files and what they include. Only includes git
// can read as config are kept (a file of another kind named by mistake
// is no config to show).
func ReadGlobalConfig(files []string, home string) GlobalConfig {
	g := GlobalConfig{home: home, named: len(files)}
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
		g.files = append(g.files, readConfigFile(f))
	}
	var follow func(f configFile, depth int)
	follow = func(f configFile, depth int) {
		for _, v := range f.vars {
			if !v.HasValue || !isInclude(v.Name) {
				continue
			}
			inc := configPath(v.Value, f.path, home)
			if inc == "" || seen[inc] || depth >= maxIncludeDepth {
				continue // git refuses nesting deeper: shown no further
			}
			seen[inc] = true
			if c := readConfigFile(inc); c.vars != nil {
				g.files = append(g.files, c)
				follow(c, depth+1)
			}
		}
	}
	for _, f := range g.files[:g.named] {
		follow(f, 0)
	}
	return g
}

func readConfigFile(p string) configFile {
	c := configFile{path: p}
	b, err := readSmall(p)
	if err != nil {
		return c
	}
	c.data = b
	if vars, err := parseGitConfig(b); err == nil {
		// An empty config is a config too.
		c.vars = append(make([]gitVar, 0, len(vars)), vars...)
	}
	return c
}

// Includes are the included files, in the order git meets them.
func (g GlobalConfig) Includes() []string {
	var out []string
	for _, f := range g.files[g.named:] {
		out = append(out, f.path)
	}
	return out
}

// Data is the content of file p of the config, if it was read.
func (g GlobalConfig) Data(p string) ([]byte, bool) {
	for _, f := range g.files {
		if f.path == p {
			return f.data, f.data != nil
		}
	}
	return nil, false
}

// namedFileKeys are the settings that name a file git reads by itself:
// ignore rules, attributes, the commit message template, and the
// directory of the person's own hooks (a secret scanner run before each
// commit, say), which a sandbox's git runs inside it as the host's git
// would.
var namedFileKeys = []string{"core.excludesfile", "core.attributesfile", "commit.template", "core.hookspath"}

// NamedFiles are the files the config names in namedFileKeys, absolute
// or under ~/, each once.
func (g GlobalConfig) NamedFiles() []string {
	var out []string
	for _, f := range g.files {
		for _, v := range f.vars {
			if !v.HasValue || !slices.Contains(namedFileKeys, v.Name) {
				continue
			}
			if p := expandHome(v.Value, g.home); filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
				out = append(out, filepath.Clean(p))
			}
		}
	}
	return out
}

// Bool is boolean setting key (lower-case, as "commit.gpgsign") as the
// config leaves it: the last word wins, as in git (which reads an
// include where it stands; these follow the file that names them, close
// enough to say what a setting is). A value git reads as false, or none
// at all, is false.
func (g GlobalConfig) Bool(key string) bool {
	on := false
	for _, f := range g.files {
		for _, v := range f.vars {
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
		named := slices.Contains(namedFileKeys, v.Name) && strings.HasPrefix(v.Value, "~/")
		if !v.HasValue || (!isInclude(v.Name) && !named) || v.Line < 1 || v.Line > len(lines) {
			continue
		}
		line := lines[v.Line-1]
		body := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(strings.TrimSpace(body), "[") || strings.HasSuffix(body, "\\") {
			continue
		}
		p := configPath(v.Value, file, home)
		if p == "" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSpace(body), "=")
		lines[v.Line-1] = "\t" + strings.TrimSpace(name) + " = " + quoteGitValue(p) + line[len(body):]
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
