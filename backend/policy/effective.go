package policy

import (
	"fmt"
	"sort"
)

// RuleInfo is a rule as the person sees it in the Policy screen.
type RuleInfo struct {
	ID      string   `json:"id"`
	Action  string   `json:"action"`
	Tool    string   `json:"tool,omitempty"`
	Binary  string   `json:"binary,omitempty"`
	Args    []string `json:"args,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	Domains []string `json:"domains,omitempty"`
	Ports   []int    `json:"ports,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	Source  Source   `json:"source"`
	File    string   `json:"file,omitempty"`
	Line    int      `json:"line,omitempty"`
	// Stage is the step of Decide that applies the rule (see Stages).
	Stage Stage `json:"stage"`
}

// Stage is one step of Decide's precedence, in the order it applies.
type Stage string

const (
	StageAlways    Stage = "always"    // ask_human and unknown tools, before anything else
	StageManaged   Stage = "managed"   // the organisation's rules: nothing after them loosens them
	StageUser      Stage = "user"      // your rules and session grants, most specific first
	StageBaseline  Stage = "baseline"  // the mode's answer when no rule of yours matched
	StageRisk      Stage = "risk"      // risks that turn an allow into an ask
	StageWorkspace Stage = "workspace" // the workspace's rules, which can only tighten
	StageMode      Stage = "mode"      // plan's ceiling, unattended's asks becoming denials
)

// Effective lists the rules in force for mode, in the order Decide applies
// them, with the ids cards, the tester and the audit cite.
func (p *Policy) Effective(mode Mode) []RuleInfo {
	b := func(stage Stage, id, action, tool, reason string) RuleInfo {
		return RuleInfo{ID: id, Action: action, Tool: tool, Reason: reason, Source: SourceBuiltin, Stage: stage}
	}
	out := []RuleInfo{
		b(StageAlways, "ask-human", "allow", ToolAskHuman, "asking the person is always allowed"),
		b(StageAlways, "unknown-tool", "deny", "", "a tool Gatehouse does not know is refused"),
	}
	managed := p.rulesOf(p.managed.rules, StageManaged)
	for i := range managed {
		managed[i].Reason = OrgSays + ": " + managed[i].Reason
	}
	if p.managed.err != nil {
		managed = append(managed, RuleInfo{ID: "managed-policy-invalid", Action: "deny", Source: SourceManaged, File: p.managed.path, Stage: StageManaged,
			Reason: fmt.Sprintf("%s: the managed policy does not load (%v); every call is refused until it is fixed", OrgSays, p.managed.err)})
	}
	out = append(out, managed...)
	out = append(out, p.rulesOf(p.user, StageUser)...)
	out = append(out, baselineRules(mode)...)
	cmds := b(StageRisk, "interpreter", "ask", ToolRunCommand, "interpreters run arbitrary code; in auto mode the sandbox bounds them and they run, elsewhere they ask")
	cmds.Args = sortedSet(interpreters)
	out = append(out,
		cmds,
		RuleInfo{ID: "sensitive", Action: "ask", Paths: []string{".env*", "id_rsa*", "*.pem", "*.key", "~/.aws/**", "~/.ssh/**"}, Domains: []string{"169.254.169.254"},
			Reason: "credentials and metadata services ask", Source: SourceBuiltin, Stage: StageRisk},
		RuleInfo{ID: "destructive", Action: "ask", Tool: ToolRunCommand, Args: []string{"git push --force", "git reset --hard", "git clean -fdx", "rm -r <workspace root>"},
			Reason: "patterns that discard work ask (in auto mode only those that leave the workspace: rollback undoes the rest)", Source: SourceBuiltin, Stage: StageRisk},
		b(StageRisk, "protected", "ask", "", "writing git hooks and config, shell rc files, agent and editor config asks"),
		b(StageRisk, "unconfined", "ask", ToolRunCommand, "a command that runs outside the sandbox asks"),
		b(StageRisk, "goal-drift", "ask", "", "a call reaching for secrets the person's request never mentions asks"),
	)
	out = append(out, p.rulesOf(p.workspace, StageWorkspace)...)
	out = append(out,
		b(StageMode, "plan-mode", "deny", "", "plan mode is read-only: writes, edits and commands other than read-only ones are denied"),
		b(StageMode, "unattended", "deny", "", "unattended mode denies whatever would ask"),
	)
	return out
}

func (p *Policy) rulesOf(rules []Rule, stage Stage) []RuleInfo {
	out := make([]RuleInfo, 0, len(rules))
	for _, r := range rules {
		out = append(out, RuleInfo{
			ID: r.ID, Action: r.Action.String(), Tool: r.Tool, Binary: r.Binary, Args: r.Args, Paths: r.Paths,
			Domains: r.Domains, Ports: r.Ports, Reason: r.Reason, Source: r.source, File: r.file, Line: r.line, Stage: stage,
		})
	}
	return out
}

// baselineRules are the mode's builtin answers, named as Decide names them.
func baselineRules(mode Mode) []RuleInfo {
	b := func(id, action, tool, reason string) RuleInfo {
		return RuleInfo{ID: id, Action: action, Tool: tool, Reason: reason, Source: SourceBuiltin, Stage: StageBaseline}
	}
	read := b("workspace-read", "allow", "", "reads inside the workspace run")
	outside := b("outside-workspace", "ask", "", "reading or writing outside the workspace asks")
	fetch := b("fetch", "ask", ToolFetchURL, "a domain no rule allows asks")
	if boundaryMode(mode) {
		return []RuleInfo{read, outside,
			b("workspace-edit", "allow", "", "edits inside the workspace run: each is checkpointed and can be undone"),
			b("sandboxed-command", "allow", ToolRunCommand, "commands run inside the sandbox: the network only through the proxy, writes only in the workspace, every change checkpointed"),
			b("no-sandbox", "ask", "", "with no sandbox, commands and edits ask"),
			b("unconfined", "ask", ToolRunCommand, "a command that runs outside the sandbox asks"),
			fetch,
		}
	}
	harmless := b("harmless-command", "allow", ToolRunCommand, "harmless commands run inside the sandbox without asking")
	harmless.Args = sortedKeys(harmlessCommands)
	edit := b("workspace-edit", "ask", "", "edits inside the workspace ask (accept-edits mode allows them)")
	if mode == ModeAcceptEdits {
		edit = b("workspace-edit", "allow", "", "edits inside the workspace are allowed in accept-edits mode")
	}
	return []RuleInfo{read, outside, edit, harmless, b("command", "ask", ToolRunCommand, "any other command asks"), fetch}
}

// ValidateUserFile checks the text of a user policy file without writing it.
func ValidateUserFile(data []byte, file string) error {
	_, _, err := parseUser(data, file)
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedSet(m map[string]bool) []string { return sortedKeys(m) }
