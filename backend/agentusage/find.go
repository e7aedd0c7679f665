package agentusage

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Env is where the agents keep their files: the daemon runs as the person,
// with their HOME and the agents' own variables.
type Env struct {
	Home            string
	ClaudeConfigDir string // CLAUDE_CONFIG_DIR
	CodexHome       string // CODEX_HOME
}

// EnvFromOS reads Env from the daemon's environment.
func EnvFromOS() Env {
	home, _ := os.UserHomeDir()
	return Env{Home: home, ClaudeConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"), CodexHome: os.Getenv("CODEX_HOME")}
}

// find names the file an agent run's tokens are in, and its reader; why
// says what is missing when there is none.
func (e Env) find(run string) (path string, read func(string) Usage, why string) {
	agent, id, ok := strings.Cut(run, ":")
	switch {
	case !ok || run == "":
		return "", nil, "the session has no agent run to read token counts from"
	case id == "" || strings.ContainsAny(id, `/\*?[]`) || id == "." || id == "..":
		return "", nil, "the agent's run id cannot name a file"
	}
	first := func(pattern string) string {
		m, _ := filepath.Glob(pattern)
		if len(m) == 0 {
			return ""
		}
		return m[len(m)-1]
	}
	switch agent {
	case "claude":
		dir := e.ClaudeConfigDir
		if dir == "" {
			dir = filepath.Join(e.Home, ".claude")
		}
		if p := first(filepath.Join(dir, "projects", "*", id+".jsonl")); p != "" {
			return p, ReadClaude, ""
		}
		return "", nil, "no Claude Code transcript for this run under " + filepath.Join(dir, "projects")
	case "codex":
		dir := e.CodexHome
		if dir == "" {
			dir = filepath.Join(e.Home, ".codex")
		}
		if p := first(filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl")); p != "" {
			return p, ReadCodex, ""
		}
		return "", nil, "no Codex rollout for this run under " + filepath.Join(dir, "sessions")
	case "gemini":
		short := id
		if len(short) > 8 {
			short = short[:8]
		}
		matches, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*"+short+"*"))
		for _, p := range matches {
			if !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".jsonl") {
				continue
			}
			if sid, ok := geminiSessionOf(p); ok && sid == id {
				return p, ReadGemini, ""
			}
		}
		return "", nil, "no Gemini CLI chat for this run under " + filepath.Join(e.Home, ".gemini", "tmp")
	}
	return "", nil, agent + " does not write token counts where Gatehouse can read them"
}

// Reader reads runs' usage, re-reading a file only when it changed.
type Reader struct {
	Env   Env
	mu    sync.Mutex
	cache map[string]cached
	// aliases map a run named by its agent process ("gemini:proc-…") to
	// the agent's own session id, which its files are named by.
	aliases map[string]string
}

// Alias records that run's agent calls its session agentSession (learnt
// from its hooks). Kept in memory: after a restart the next hook tells
// it again.
func (r *Reader) Alias(run, agentSession string) {
	agent, _, _ := strings.Cut(run, ":")
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aliases == nil {
		r.aliases = map[string]string{}
	}
	if len(r.aliases) > 10_000 {
		clear(r.aliases) // bounded; a live run's next hook says it again
	}
	r.aliases[run] = agent + ":" + agentSession
}

type cached struct {
	size  int64
	mtime time.Time
	u     Usage
}

// ForRun is the usage of the agent run ("claude:ID", as sessions name
// their runs).
func (r *Reader) ForRun(run string) Usage {
	r.mu.Lock()
	if a, ok := r.aliases[run]; ok {
		run = a
	}
	r.mu.Unlock()
	path, read, why := r.Env.find(run)
	if path == "" {
		return Usage{Why: why}
	}
	st, err := os.Stat(path)
	if err != nil {
		return unknown(path, "the agent's file went away: %v", err)
	}
	r.mu.Lock()
	c, ok := r.cache[path]
	r.mu.Unlock()
	if ok && c.size == st.Size() && c.mtime.Equal(st.ModTime()) {
		return c.u
	}
	u := read(path)
	r.mu.Lock()
	if r.cache == nil {
		r.cache = map[string]cached{}
	}
	r.cache[path] = cached{size: st.Size(), mtime: st.ModTime(), u: u}
	r.mu.Unlock()
	return u
}
