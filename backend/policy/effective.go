package policy

import "sort"

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
}

// Effective lists the rules in force: the built-in classes first, then the
// user's rules, then the workspace rules.
func (p *Policy) Effective() []RuleInfo {
	out := []RuleInfo{
		{ID: "harmless-command", Action: "allow", Tool: ToolRunCommand, Args: sortedKeys(harmlessCommands), Reason: "harmless commands run inside the sandbox without asking", Source: SourceBuiltin},
		{ID: "interpreter", Action: "ask", Tool: ToolRunCommand, Args: sortedSet(interpreters), Reason: "interpreters run arbitrary code; allowing one grants arbitrary code execution inside the sandbox", Source: SourceBuiltin},
		{ID: "sensitive-target", Action: "ask", Paths: []string{".env*", "id_rsa*", "~/.aws/**", "~/.ssh/**"}, Domains: []string{"169.254.169.254"}, Reason: "credentials and metadata services always ask, whatever the mode", Source: SourceBuiltin},
		{ID: "destructive-pattern", Action: "ask", Tool: ToolRunCommand, Args: []string{"git push --force", "git reset --hard", "git clean -fdx", "rm -r <workspace root>"}, Reason: "patterns that discard work always ask", Source: SourceBuiltin},
	}
	for _, set := range [][]Rule{p.user, p.workspace} {
		for _, r := range set {
			out = append(out, RuleInfo{
				ID: r.ID, Action: r.Action.String(), Tool: r.Tool, Binary: r.Binary, Args: r.Args, Paths: r.Paths,
				Domains: r.Domains, Ports: r.Ports, Reason: r.Reason, Source: r.source, File: r.file, Line: r.line,
			})
		}
	}
	return out
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
