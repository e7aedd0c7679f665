package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"text/tabwriter"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
	"github.com/gatehouse-dev/gatehouse/sandbox/oneline"
)

// agentRow is one doctor row about an installed agent.
type agentRow struct {
	Agent, Check string
	OK           bool
	Reason       string
}

// hookProbeTimeout bounds one run of an agent's hook command.
const hookProbeTimeout = 15 * time.Second

// doctorAgents checks every installed agent: its hook is wired, and the
// hook blocks a native shell call while no daemon answers (an agent's hook
// that fails open is worse than none: it looks like protection).
func doctorAgents(ctx context.Context, dataDir string) []agentRow {
	env, err := agentconfig.FromOS()
	if err != nil {
		return []agentRow{{Agent: "-", Check: "agents", Reason: err.Error()}}
	}
	in := agentconfig.Installer{Env: env, DataDir: dataDir}
	var rows []agentRow
	for _, a := range agentconfig.Agents {
		for _, scope := range []agentconfig.Scope{agentconfig.User, agentconfig.System} {
			st := in.Status(a, scope)
			if !st.Wired && !st.Recorded {
				continue
			}
			name := fmt.Sprintf("%s (%s)", a, scope)
			if !st.Wired {
				rows = append(rows, agentRow{name, "hook wired", false, "install recorded but the hook is missing from the config; run gatehouse install " + string(a) + " again"})
				continue
			}
			rows = append(rows, agentRow{name, "hook wired", true, "in " + st.Files[len(st.Files)-1]})
			cmds := in.HookCommands(a, scope)
			if len(cmds) == 0 {
				rows = append(rows, agentRow{name, "blocks while daemon down", false, "no Gatehouse hook command found in the config"})
				continue
			}
			ok, why := probeHook(ctx, a, cmds[0])
			rows = append(rows, agentRow{name, "blocks while daemon down", ok, why})
		}
	}
	return rows
}

// probeHook runs cmd (pointed at an empty data dir) with a sample native
// shell call in agent a's hook format and checks that it is blocked.
func probeHook(ctx context.Context, a agentconfig.Agent, cmd string) (bool, string) {
	empty, err := os.MkdirTemp("", "gatehouse-doctor-")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(empty)
	ctx, cancel := context.WithTimeout(ctx, hookProbeTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", agentconfig.WithDataDir(cmd, empty))
	c.Stdin = bytes.NewReader(sampleShellCall(a, empty))
	c.Dir = empty
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err = c.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return false, "the hook did not answer within " + hookProbeTimeout.String()
	case denies(a, out.Bytes()):
		return true, "denied with the daemon down"
	case errors.As(err, &ee) && ee.ExitCode() == 2 && a != agentconfig.Cursor:
		return true, "blocked (exit 2)"
	case err != nil:
		return false, fmt.Sprintf("the hook failed (%v) instead of answering deny: %s", err, firstLine(errb.String()))
	}
	return false, "the hook let a shell call through with the daemon down: " + firstLine(out.String())
}

// sampleShellCall is a native shell PreToolUse in agent a's format.
func sampleShellCall(a agentconfig.Agent, cwd string) []byte {
	var v map[string]any
	switch a {
	case agentconfig.Gemini:
		v = map[string]any{"session_id": "gatehouse-doctor", "cwd": cwd, "hook_event_name": "BeforeTool",
			"timestamp": time.Now().UTC().Format(time.RFC3339), "tool_name": "run_shell_command",
			"tool_input": map[string]any{"command": "true", "description": "doctor probe"}}
	case agentconfig.Cursor:
		v = map[string]any{"conversation_id": "gatehouse-doctor", "hook_event_name": "beforeShellExecution", "command": "true", "cwd": cwd}
	default: // Claude Code and Codex share the shape
		v = map[string]any{"session_id": "gatehouse-doctor", "cwd": cwd, "hook_event_name": "PreToolUse",
			"permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]any{"command": "true"}, "tool_use_id": "doctor"}
	}
	b, _ := json.Marshal(v)
	return b
}

// denies reports whether out is a deny in agent a's hook format.
func denies(a agentconfig.Agent, out []byte) bool {
	var v struct {
		Decision           string `json:"decision"`
		Permission         string `json:"permission"`
		HookSpecificOutput struct {
			HookEventName      string `json:"hookEventName"`
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(bytes.TrimSpace(out), &v) != nil {
		return false
	}
	switch a {
	case agentconfig.Gemini:
		return v.Decision == "deny" || v.Decision == "block"
	case agentconfig.Cursor:
		return v.Permission == "deny"
	default:
		return v.HookSpecificOutput.HookEventName == "PreToolUse" && v.HookSpecificOutput.PermissionDecision == "deny"
	}
}

func firstLine(s string) string { return oneline.Of(s, 200, "(no output)") }

func printAgentRows(w io.Writer, rows []agentRow) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "No agent is wired to Gatehouse yet; see `gatehouse install --help`.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tCHECK\tRESULT\tREASON")
	for _, r := range rows {
		res := "pass"
		if !r.OK {
			res = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Agent, r.Check, res, r.Reason)
	}
	_ = tw.Flush()
}

func agentRowsFailed(rows []agentRow) bool {
	for _, r := range rows {
		if !r.OK {
			return true
		}
	}
	return false
}
