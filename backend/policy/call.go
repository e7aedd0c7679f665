package policy

import (
	"fmt"
	"strings"
)

// Tool names, as exposed over MCP.
const (
	ToolRunCommand  = "run_command"
	ToolReadFile    = "read_file"
	ToolWriteFile   = "write_file"
	ToolEditFile    = "edit_file"
	ToolListDir     = "list_dir"
	ToolSearchFiles = "search_files"
	ToolFetchURL    = "fetch_url"
	ToolAskHuman    = "ask_human"
)

// toolClass groups tools by what they can do to the machine.
type toolClass int

const (
	classUnknown toolClass = iota
	classRead              // read_file, list_dir, search_files
	classWrite             // write_file, edit_file
	classCommand           // run_command
	classFetch             // fetch_url
	classHuman             // ask_human
)

func classOf(tool string) toolClass {
	switch tool {
	case ToolReadFile, ToolListDir, ToolSearchFiles:
		return classRead
	case ToolWriteFile, ToolEditFile:
		return classWrite
	case ToolRunCommand:
		return classCommand
	case ToolFetchURL:
		return classFetch
	case ToolAskHuman:
		return classHuman
	}
	return classUnknown
}

// ReadsProtected reports whether Decide looks at Session.Protected for
// a call to tool: only file writes do, so the caller need not find the
// repository's protected paths (reading its git config) for the rest.
func ReadsProtected(tool string) bool { return classOf(tool) == classWrite }

// Mode is the session's permission mode.
type Mode string

const (
	// ModePlan is read-only: reads inside the workspace and builtin read-only
	// commands run; writes, edits and every other command are denied.
	ModePlan Mode = "plan"
	// ModeAsk allows reads inside the workspace and the harmless-command
	// allowlist; everything else asks (the first releases' default).
	ModeAsk Mode = "ask"
	// ModeAuto asks only at the boundary: reads, workspace edits and
	// sandboxed commands run; a path outside the workspace, a protected or
	// secret path, a command without the sandbox, a new domain or an effect
	// a rollback cannot undo (a force-push) asks. Without a sandbox,
	// everything but reads asks. The default for new sessions.
	ModeAuto Mode = "auto"
	// ModeAcceptEdits is ModeAsk plus writes and edits inside the
	// workspace (protected files such as .git/hooks still ask).
	ModeAcceptEdits Mode = "accept-edits"
	// ModeUnattended is for CI: the ModeAuto baseline, and every ask
	// becomes deny because nobody is there to answer.
	ModeUnattended Mode = "unattended"
	// ModeDefault names whatever the configured default is; ParseMode reads
	// it as ModeAuto, and the daemon resolves it when a session starts.
	ModeDefault Mode = "default"
)

// Modes lists the mode names, for help texts and errors.
var Modes = []Mode{ModePlan, ModeAsk, ModeAuto, ModeAcceptEdits, ModeUnattended}

// ParseMode accepts the mode names above; the empty string and "default"
// mean ModeAuto. Anything else is an error that lists the choices.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case "", ModeDefault:
		return ModeAuto, nil
	case ModePlan, ModeAsk, ModeAuto, ModeAcceptEdits, ModeUnattended:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: use %s (or default)", s, ModeList())
}

// ModeList names every mode, for messages and help.
func ModeList() string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Action is what one tool call would do, as policy sees it, with names
// already resolved by the caller.
type Action struct {
	Tool string
	// Argv is the command line for run_command, argv[0] as the agent sent it.
	Argv []string
	// Binary is argv[0] resolved to an absolute path (see ResolveBinary).
	Binary string
	// Cwd is the absolute working directory of run_command.
	Cwd string
	// Paths are the absolute, cleaned paths a file tool touches.
	Paths []string
	// URL is fetch_url's target.
	URL string
	// Unconfined: the command runs outside Gatehouse's sandbox (an agent's
	// own tool that Gatehouse cannot route through it), so nothing bounds
	// it and it always asks.
	Unconfined bool
}

// Session is what Decide needs to know about the agent's session.
type Session struct {
	Mode Mode
	// Workspaces are absolute, cleaned workspace roots.
	Workspaces []string
	// Home is the person's home directory, used for ~ in rules and for
	// sensitive locations such as ~/.ssh.
	Home string
	// Grants are rules the person approved for this session only.
	Grants []Rule
	// Sandboxed: commands run in an enforced sandbox (the backend is not
	// "none"); in auto mode that is what lets them run without a card.
	Sandboxed bool
	// Goal is what the person asked the agent to do (their prompt), when
	// the agent reports it; calls reaching for secrets it never mentions
	// are flagged as drifting from it.
	Goal string

	// Protected are absolute paths in the workspaces that the sandbox
	// keeps read-only or uncreatable beyond the fixed names protectedPath
	// knows: what the repository's own config names (core.hooksPath, its
	// included files), found by the caller (sandbox/protect.For), since
	// Decide reads no files. Writing one, or inside one, asks.
	Protected []string
}
