// Package agentprofile is what each agent CLI needs to work confined
// (`gatehouse run claude|codex|gemini`): the state it must write, the
// settings it reads but must not change, the model API it talks to, and
// the environment it needs. The facts come from the agents' own docs and
// issues; each profile says where.
package agentprofile

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Profile is one agent's needs, before paths are resolved.
type Profile struct {
	Name string
	// Binary is the command the agent is started as.
	Binary string
	// stateDir finds the agent's state directory from its environment.
	stateDir func(env func(string) string, home string) string
	// Config are names inside the state directory the agent reads as its
	// settings, hooks, plugins or instructions: read-only inside. A
	// missing one is made before the run (an empty directory, or a file
	// with neutral content) so the agent cannot create it either.
	Config []Entry
	// HomeFiles are files the agent keeps directly in $HOME and saves
	// through lock and temp siblings there: they live in the agent's own
	// home (seeded from the person's on first use), never the real one.
	HomeFiles func(env func(string) string) []string
	// MakesInState says the agent makes files directly in its state
	// directory, beside its settings (Gemini saves projects.json through
	// a temporary file there). Where the settings cannot then be kept
	// read-only (Landlock grants a directory's new files and all beneath
	// it at once), they are guarded instead: changed, they stop the run
	// and are put back.
	MakesInState bool
	// ProjectDirs are names the agent's own sandbox binds read-only in
	// the project, making them first where missing, which the run
	// refuses: missing ones are made empty before the run, so they are
	// found, and bound read-only in the run too.
	ProjectDirs []string
	// Domains are its model API, reached through the proxy without a card.
	Domains []string
	// Env are variables passed in although their names look secret (the
	// agent's own API keys); EnvPrefixes pass every variable they begin.
	Env, EnvPrefixes []string
	// Unconfinable are the agent's own flags that cannot work in a
	// confined run, each with what to do instead.
	Unconfinable []Flag
	// DirFlags are its flags that name more directories to work in
	// (claude --add-dir): a confined run shows only its project, so one
	// outside it is said before the agent starts.
	DirFlags []DirFlag
}

// DirFlag is a flag whose value names directories: one after it (or
// after "="), every word up to the next flag when Many, and each
// comma-separated one when Comma.
type DirFlag struct {
	Names       []string
	Many, Comma bool
}

// NamedDirs are the directories args (the agent's own) name with its
// DirFlags, as written.
func (p Profile) NamedDirs(args []string) []string {
	var out []string
	add := func(f DirFlag, v string) {
		if f.Comma {
			out = append(out, strings.Split(v, ",")...)
			return
		}
		out = append(out, v)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, f := range p.DirFlags {
			for _, n := range f.Names {
				v, inline, ok := flagIs(a, n)
				switch {
				case !ok:
					continue
				case inline:
					add(f, v)
					continue
				}
				for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++
					add(f, args[i])
					if !f.Many {
						break
					}
				}
			}
		}
	}
	return slices.DeleteFunc(out, func(d string) bool { return d == "" })
}

// Flag is one of an agent's command-line flags: its spellings, and why
// a confined run cannot honour it.
type Flag struct {
	Names []string
	Why   string
}

// Unconfined is why args (the agent's own, after its name) ask for what
// a confined run cannot do, "" when they do not. A flag matches as
// written, or with its value after "=".
func (p Profile) Unconfined(args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		for _, f := range p.Unconfinable {
			for _, n := range f.Names {
				if _, _, ok := flagIs(a, n); ok {
					return f.Why
				}
			}
		}
	}
	return ""
}

// flagIs reports whether argument a is flag n, as written or as n=VALUE
// (inline, with its value).
func flagIs(a, n string) (value string, inline, ok bool) {
	if a == n {
		return "", false, true
	}
	value, inline = strings.CutPrefix(a, n+"=")
	return value, inline, inline
}

// Entry is a config name inside the state directory.
type Entry struct {
	Name string
	Dir  bool
	// Empty is a missing file's neutral content ("{}" for JSON settings).
	Empty string
}

// Resolved is a profile's paths for one person.
type Resolved struct {
	Profile
	// State is the writable state directory (absolute).
	State string
	// ConfigPaths are Config, absolute.
	ConfigPaths []string
	// Seed are HomeFiles, absolute, in the real home.
	Seed []string
}

// Names lists the agents with a profile.
func Names() []string {
	out := make([]string, 0, len(profiles))
	for _, p := range profiles {
		out = append(out, p.Name)
	}
	return out
}

// Lookup finds an agent's profile; ok is false for a name that has none
// (the command then runs with no profile).
func Lookup(name string) (Profile, bool) {
	for _, p := range profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Resolve finds the profile's paths in home with env.
func (p Profile) Resolve(env func(string) string, home string) (Resolved, error) {
	if !filepath.IsAbs(home) {
		return Resolved{}, fmt.Errorf("the home directory %q is not an absolute path", home)
	}
	r := Resolved{Profile: p, State: filepath.Clean(p.stateDir(env, home))}
	if !filepath.IsAbs(r.State) {
		return Resolved{}, fmt.Errorf("%s's state directory %q is not an absolute path", p.Name, r.State)
	}
	for _, c := range p.Config {
		r.ConfigPaths = append(r.ConfigPaths, filepath.Join(r.State, c.Name))
	}
	if p.HomeFiles != nil {
		for _, f := range p.HomeFiles(env) {
			r.Seed = append(r.Seed, filepath.Join(home, f))
		}
	}
	return r, nil
}

// Passes reports whether the environment variable name goes into the
// run although it looks secret.
func (p Profile) Passes(name string) bool {
	if slices.Contains(p.Env, name) {
		return true
	}
	for _, pre := range p.EnvPrefixes {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

// dirOr is env's value of key, or home/rel.
func dirOr(key, rel string) func(env func(string) string, home string) string {
	return func(env func(string) string, home string) string {
		if v := env(key); v != "" {
			return v
		}
		return filepath.Join(home, rel)
	}
}
