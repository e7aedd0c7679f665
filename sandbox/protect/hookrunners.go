package protect

import (
	"os"
	"path/filepath"
	"strings"
)

// Hook runners (husky, pre-commit, lefthook) install a hook in git's
// hooks that reads their config at each commit, so that config runs
// code on the host as surely as a hook does. A runner's config files are
// protected when the runner is installed (one of the hooks git runs for
// the workspace names it) or configured (one of its files exists):
// existing ones are read-only, missing ones cannot be created, so no
// second config can appear beside the first ("if there are more than
// one, you'll never know which one is used", says lefthook). Husky's
// directory and pre-commit's usual file are protected always.

type hookRunner struct {
	marker string   // what the hook it installs says
	names  []string // its config, relative to the work tree root
	always []string // protected whether installed or not
}

var hookRunners = []hookRunner{
	{
		// The hooks themselves (core.hooksPath = .husky/_), and the
		// config files of its older versions.
		marker: "husky",
		always: []string{".husky"},
		names: []string{".huskyrc", ".huskyrc.json", ".huskyrc.yaml", ".huskyrc.yml",
			".huskyrc.js", ".huskyrc.cjs", "husky.config.js", "husky.config.cjs"},
	},
	{
		marker: "pre-commit",
		always: []string{".pre-commit-config.yaml"},
		names:  []string{".pre-commit-config.yml"},
	},
	{marker: "lefthook", names: lefthookNames()},
}

func lefthookNames() []string {
	out := []string{".lefthook", ".lefthook-local"} // its script directories
	for _, base := range []string{"lefthook", ".lefthook", "lefthook-local", ".lefthook-local", ".config/lefthook"} {
		for _, ext := range []string{".yml", ".yaml", ".json", ".jsonc", ".toml"} {
			out = append(out, base+ext)
		}
	}
	return out
}

// HookRunnerNames are every hook runner's config names: file tools ask
// before writing any of them, installed or not.
var HookRunnerNames = func() []string {
	var out []string
	for _, h := range hookRunners {
		out = append(append(out, h.always...), h.names...)
	}
	return out
}()

// maxHookBytes bounds how much of a hook is read to see what it calls.
const maxHookBytes = 64 << 10

// hookRunners adds the runner config names for the hooks in dirs.
func (c *collector) hookRunners(dirs []string) {
	hooks := hookText(dirs)
	for _, h := range hookRunners {
		for _, n := range h.always {
			c.add(filepath.Join(c.ws, filepath.FromSlash(n)))
		}
		configured := false
		for _, n := range h.names {
			if c.exists(filepath.Join(c.ws, filepath.FromSlash(n))) {
				configured = true
				c.add(filepath.Join(c.ws, filepath.FromSlash(n)))
			}
		}
		if !configured && !strings.Contains(hooks, h.marker) {
			continue
		}
		for _, n := range h.names {
			c.add(filepath.Join(c.ws, filepath.FromSlash(n)))
		}
	}
}

// hookText is the start of every hook in dirs (git's *.sample files
// are never run, and are skipped).
func hookText(dirs []string) string {
	var b strings.Builder
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() || strings.HasSuffix(e.Name(), ".sample") {
				continue
			}
			if text, err := readHook(filepath.Join(d, e.Name())); err == nil {
				b.WriteString(text)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

func readHook(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", os.ErrInvalid
	}
	buf := make([]byte, maxHookBytes)
	n, _ := f.Read(buf)
	return string(buf[:n]), nil
}
