package agentprofile

import "path/filepath"

var profiles = []Profile{claude, codex, gemini}

// Claude Code: CLAUDE_CONFIG_DIR (default ~/.claude) holds sessions,
// todos, shell snapshots and the credentials it refreshes, and it makes a
// directory there before every shell command; settings.json holds hooks
// and permissions, plugins/ and commands/, agents/ and skills/ extend it,
// CLAUDE.md is the person's own instructions to every session. Without
// CLAUDE_CONFIG_DIR, ~/.claude.json (MCP servers, projects' trust) is
// saved through ~/.claude.json.lock and .tmp.* siblings in $HOME, so it
// lives in the agent's own home.
var claude = Profile{
	Name:     "claude",
	Binary:   "claude",
	stateDir: dirOr("CLAUDE_CONFIG_DIR", ".claude"),
	Config: []Entry{
		{Name: "settings.json", Empty: "{}"}, {Name: "settings.local.json", Empty: "{}"},
		{Name: "CLAUDE.md"}, {Name: "keybindings.json", Empty: "{}"},
		{Name: "hooks", Dir: true}, {Name: "plugins", Dir: true}, {Name: "commands", Dir: true},
		{Name: "agents", Dir: true}, {Name: "skills", Dir: true}, {Name: "output-styles", Dir: true},
	},
	HomeFiles: func(env func(string) string) []string {
		if env("CLAUDE_CONFIG_DIR") != "" {
			return nil // .claude.json is in the state directory then
		}
		return []string{".claude.json"}
	},
	Domains:     []string{"api.anthropic.com", "statsig.anthropic.com", "claude.ai", "console.anthropic.com"},
	Env:         []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"},
	EnvPrefixes: []string{"ANTHROPIC_", "CLAUDE_"},
	// It makes the worktree in the project's .claude/worktrees, and the
	// project's .claude steers the next session: read-only in the run.
	Unconfinable: []Flag{{
		Names: []string{"-w", "--worktree"},
		Why: "Claude Code's --worktree makes its worktree inside the project's .claude, which stays read-only in a confined run; " +
			"make the worktree beside the project instead (git worktree add ../NAME -b NAME), then start gatehouse run claude in it",
	}},
	DirFlags: []DirFlag{{Names: []string{"--add-dir"}, Many: true}},
}

// Codex CLI: CODEX_HOME (default ~/.codex) holds sessions, logs, history
// and auth.json (refreshed tokens); config.toml names MCP servers and the
// model provider, hooks.json its hooks, AGENTS.md the person's
// instructions, rules/ its command rules.
var codex = Profile{
	Name:     "codex",
	Binary:   "codex",
	stateDir: dirOr("CODEX_HOME", ".codex"),
	Config: []Entry{
		{Name: "config.toml"}, {Name: "hooks.json", Empty: "{}"}, {Name: "AGENTS.md"}, {Name: "AGENTS.override.md"},
		{Name: "rules", Dir: true}, {Name: "prompts", Dir: true},
	},
	MakesInState: true, // sessions/, log/, history.jsonl
	Domains:      []string{"api.openai.com", "chatgpt.com", "auth.openai.com"},
	Env:          []string{"OPENAI_API_KEY", "CODEX_API_KEY"},
	EnvPrefixes:  []string{"OPENAI_", "CODEX_"},

	// Its workspace-write sandbox (bubblewrap) binds both read-only in
	// the project, even one that is not a repository (an empty .git is
	// not one to git either).
	ProjectDirs: []string{".git", ".codex"},
	DirFlags:    []DirFlag{{Names: []string{"--add-dir", "-C", "--cd"}}},
}

// Gemini CLI: ~/.gemini (GEMINI_CLI_HOME replaces the home) holds tmp/
// (chats, checkpoints) and history; settings.json holds MCP servers and
// hooks, GEMINI.md the person's instructions, extensions/ and commands/
// extend it.
var gemini = Profile{
	Name:   "gemini",
	Binary: "gemini",
	stateDir: func(env func(string) string, home string) string {
		if h := env("GEMINI_CLI_HOME"); h != "" {
			home = h
		}
		return filepath.Join(home, ".gemini")
	},
	Config: []Entry{
		{Name: "settings.json", Empty: "{}"}, {Name: "GEMINI.md"},
		{Name: "extensions", Dir: true}, {Name: "commands", Dir: true}, {Name: "policies", Dir: true},
	},
	MakesInState: true, // projects.json through a temporary file
	Domains:      []string{"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com", "www.googleapis.com", "play.googleapis.com"},
	Env:          []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
	EnvPrefixes:  []string{"GEMINI_", "GOOGLE_"},
	DirFlags:     []DirFlag{{Names: []string{"--include-directories"}, Comma: true}},
}
