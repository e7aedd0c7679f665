package protect

import (
	"path"
	"strings"
)

// Files that steer the next session or that the person's own tools run by
// themselves: version managers' config that runs hooks when a shell
// enters the directory, editors' project settings that start programs
// when the folder opens, dev-container definitions whose commands run
// on the host, and AI assistants' instruction, memory and rules files
// that every later session in the repository reads as the person's own
// words. None of them runs while the command that wrote it runs; each
// runs or is believed later, outside the sandbox, which is why a
// command may not create or change them and file tools ask.
//
// Left out on purpose, being data that no tool runs: asdf's and mise's
// .tool-versions, .nvmrc, .node-version, .python-version, .ruby-version,
// .editorconfig. autoenv's .env is a secret already (file tools ask), and
// autoenv asks before it sources a new or changed one. aider reads
// CONVENTIONS.md only when the person names it (on its command line or in
// .aider.conf.yml, which is here).

// Steer is one kind of steering file.
type Steer struct {
	// Names are the kind's paths relative to a directory, slash-separated.
	// A name with a slash is protected only where its parent exists
	// (.github/prompts when there is a .github). A name starting with "*"
	// is a suffix (*.code-workspace): existing ones are kept read-only,
	// and new ones are refused where names can be (staged runs, file tools).
	Names []string
	// Reader finishes the sentence "PATH …": what runs it or reads it.
	Reader string
	// Instructions marks an instruction, memory or rules file: text an
	// agent reads as the person's own, which the person may well ask an
	// agent to write (the goal exemption in backend/policy).
	Instructions bool
	// Tool names the program that reads an instruction file, in the words
	// a person would use for it in a prompt (lowercase).
	Tool []string
}

// Steering is every kind, in the order the README lists them.
var Steering = []Steer{
	{Names: []string{".mise.toml", "mise.toml", ".mise.local.toml", "mise.local.toml", ".mise",
		"mise/config.toml", "mise/config.local.toml", ".config/mise.toml", ".config/mise.local.toml", ".config/mise",
		".rtx.toml", ".rtx.local.toml"},
		Reader: "is mise's configuration: mise runs its hooks and sets its environment when your shell enters the directory"},
	{Names: []string{".rvmrc"},
		Reader: "is run as a shell script by RVM when your shell enters the directory"},
	{Names: []string{".autoenv.zsh", ".autoenv_leave.zsh"},
		Reader: "is run as a shell script by zsh-autoenv when your shell enters or leaves the directory"},
	{Names: []string{".nvim.lua", ".nvimrc", ".exrc"},
		Reader: "is run by Neovim or Vim (with 'exrc' set) when the editor starts in the directory"},
	{Names: []string{".dir-locals.el", ".dir-locals-2.el"},
		Reader: "is read by Emacs when you open a file below it, and its eval forms run Lisp"},
	{Names: []string{"*.code-workspace"},
		Reader: "is a VS Code workspace: its tasks can run when the folder opens, and its settings name programs VS Code starts"},
	{Names: []string{"*.sublime-project"},
		Reader: "is a Sublime Text project, whose settings and build systems name programs Sublime Text runs"},
	{Names: []string{".zed"},
		Reader: "is Zed's project settings and tasks, which name the language servers and commands Zed starts in this project"},
	{Names: []string{".helix"},
		Reader: "is Helix's project config, whose languages.toml names the language servers Helix starts in this project"},
	{Names: []string{".fleet"},
		Reader: "is JetBrains Fleet's project settings and run configurations, which name programs Fleet runs"},
	{Names: []string{".devcontainer", ".devcontainer.json"},
		Reader: "is a dev container definition: its initializeCommand runs on your computer when the container is built or opened"},
	{Names: []string{"CLAUDE.md", "CLAUDE.local.md"}, Instructions: true, Tool: []string{"claude"},
		Reader: "is read by Claude Code at the start of every session in this repository as your own instructions"},
	{Names: []string{"AGENTS.md", "AGENTS.override.md"}, Instructions: true, Tool: []string{"codex", "agents"},
		Reader: "is read by Codex and other agents (Cursor, Zed, Amp, Jules) at the start of every session in this repository as your own instructions"},
	{Names: []string{"GEMINI.md"}, Instructions: true, Tool: []string{"gemini"},
		Reader: "is read by Gemini CLI at the start of every session in this repository as your own instructions"},
	{Names: []string{".cursorrules"}, Instructions: true, Tool: []string{"cursor"},
		Reader: "is read by Cursor's agent in every session in this repository as your own rules"},
	{Names: []string{".windsurfrules", ".windsurf"}, Instructions: true, Tool: []string{"windsurf", "cascade"},
		Reader: "is read by Windsurf's Cascade in every session in this repository as your own rules"},
	{Names: []string{".clinerules"}, Instructions: true, Tool: []string{"cline"},
		Reader: "is read by Cline in every session in this repository as your own rules"},
	{Names: []string{".roo", ".roorules", ".roomodes"}, Instructions: true, Tool: []string{"roo"},
		Reader: "is read by Roo Code in every session in this repository as your own rules and modes"},
	{Names: []string{".github/copilot-instructions.md", ".github/instructions", ".github/prompts", ".github/chatmodes", ".github/agents"},
		Instructions: true, Tool: []string{"copilot"},
		Reader: "is read by GitHub Copilot in every chat in this repository as your own instructions"},
	{Names: []string{".junie"}, Instructions: true, Tool: []string{"junie"},
		Reader: "is read by JetBrains Junie in every session in this repository as your own guidelines"},
	{Names: []string{".augment-guidelines", ".augment"}, Instructions: true, Tool: []string{"augment"},
		Reader: "is read by Augment in every session in this repository as your own guidelines"},
	{Names: []string{".goosehints"}, Instructions: true, Tool: []string{"goose"},
		Reader: "is read by Goose in every session in this repository as your own hints"},
	{Names: []string{".rules"}, Instructions: true, Tool: []string{"zed"},
		Reader: "is read by Zed's agent in every thread in this repository as your own rules"},
	{Names: []string{".continue"},
		Reader: "is Continue's project config: rules it reads as your own and MCP servers it starts"},
	{Names: []string{".aider.conf.yml"},
		Reader: "is aider's configuration, whose lint and test commands aider runs and whose read files it takes as your conventions"},
	{Names: []string{".kiro"},
		Reader: "is Kiro's project config: steering files it reads as your own and agent hooks that run commands"},
	{Names: []string{".amazonq"},
		Reader: "is Amazon Q's project config: rules it reads as your own and MCP servers it starts"},
	{Names: []string{".opencode", "opencode.json", "opencode.jsonc"},
		Reader: "is opencode's project config: instructions it reads as your own, and commands, plugins and MCP servers it runs"},
}

// SteeringNames are every kind's names without a suffix pattern: what
// each workspace root keeps read-only or uncreatable.
var SteeringNames = func() []string {
	var out []string
	for _, k := range Steering {
		for _, n := range k.Names {
			if !strings.HasPrefix(n, "*") {
				out = append(out, n)
			}
		}
	}
	return out
}()

// steerName is one kind's name, lowercased once for SteeringKind.
type steerName struct {
	kind   int
	name   string // as the kind spells it
	lower  string // lowercased; for a suffix, without the "*"
	suffix bool
}

var steerNames = func() []steerName {
	var out []steerName
	for i, k := range Steering {
		for _, n := range k.Names {
			sn := steerName{kind: i, name: n, lower: strings.ToLower(n)}
			if strings.HasPrefix(n, "*") {
				sn.suffix, sn.lower = true, sn.lower[1:]
			}
			out = append(out, sn)
		}
	}
	return out
}()

// SteeringKind reports the kind p is, or lies inside, where p is a
// slash-separated path (absolute or relative) and the kind's name may
// sit in any directory: mise, RVM and the editors read the one where
// the shell or editor is, and agents read nested instruction files.
// Case is ignored: on a case-insensitive filesystem claude.md is
// CLAUDE.md. name is the matched name as the kind spells it.
func SteeringKind(p string) (k Steer, name string, ok bool) {
	lp := "/" + strings.Trim(strings.ToLower(path.Clean("/"+p)), "/")
	base := path.Base(lp)
	for _, sn := range steerNames {
		switch {
		case sn.suffix:
			ok = strings.HasSuffix(base, sn.lower) && len(base) > len(sn.lower)
		default:
			ok = strings.HasSuffix(lp, "/"+sn.lower) || strings.Contains(lp, "/"+sn.lower+"/")
		}
		if ok {
			return Steering[sn.kind], sn.name, true
		}
	}
	return Steer{}, "", false
}

// steering adds the kinds' names at the workspace root, and the root's
// existing entries that match a suffix kind (a new one cannot be made
// uncreatable: its name is not known in advance).
func (c *collector) steering() {
	for _, n := range SteeringNames {
		if i := strings.LastIndexByte(n, '/'); i >= 0 {
			if mode, err := c.lstat(c.join(n[:i])); err != nil || !mode.IsDir() {
				continue // .github/prompts only where .github is a directory
			}
		}
		c.add(c.join(n))
	}
	for name := range c.root {
		for _, sn := range steerNames {
			if sn.suffix && len(name) > len(sn.lower) && strings.HasSuffix(strings.ToLower(name), sn.lower) {
				c.add(c.join(name))
			}
		}
	}
}
