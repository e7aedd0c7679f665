package policy

import (
	"path"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// Files that steer the next agent session or that the person's own tools
// run by themselves (sandbox/protect's Steering: mise's config, editors'
// project settings, dev containers, AI instruction and rules files): the
// sandbox keeps them read-only at each workspace root, and file tools
// ask before writing one anywhere, saying what would run it or read it.

// steeringPath reports p when it is, or lies inside, a steering file.
func steeringPath(p string) (Risk, bool) {
	k, name, ok := protect.SteeringKind(p)
	if !ok {
		return Risk{}, false
	}
	lit := name
	if strings.HasPrefix(name, "*") {
		lit = path.Base(p) // a rule names the file itself
	}
	return Risk{Kind: RiskProtected, field: fieldText, names: []string{lit}, steering: &k, steeringName: name,
		Detail: p + " " + k.Reader}, true
}

// instructionWords are what a prompt says when it means an agent's
// instruction or memory file without naming the file.
var instructionWords = set("instructions", "instruction", "rules", "rule", "memory", "memories", "guidelines", "hints")

// steeringAsked reports whether the person's own prompt asks for the
// change r is about: only for instruction, memory and rules files, whose
// whole point is to be written when the person asks, and only when the
// prompt names the file (CLAUDE.md, .cursorrules) or its tool together
// with what the file is ("the Claude instructions", "Copilot's rules").
// A prompt that asks for neither leaves the card: an agent told by a web
// page to "remember" something is exactly what it is for.
func steeringAsked(goal string, r Risk) bool {
	k := r.steering
	if k == nil || !k.Instructions || strings.TrimSpace(goal) == "" {
		return false
	}
	lg := strings.ToLower(goal)
	// The name the write reaches, not its siblings: a prompt about
	// CLAUDE.md does not ask for CLAUDE.local.md.
	ln := strings.ToLower(r.steeringName)
	if strings.Contains(lg, ln) {
		return true
	}
	// .github/copilot-instructions.md is named by its file name; a bare
	// "prompts" or "instructions" names nothing.
	if b := path.Base(ln); b != ln && strings.Contains(b, ".") && strings.Contains(lg, b) {
		return true
	}
	tool, what := false, false
	for _, w := range words(lg) {
		for _, t := range k.Tool {
			tool = tool || w == t
		}
		what = what || instructionWords[w]
	}
	return tool && what
}

// steeringChange is the first steering file a command created or
// changed, with what runs or reads it, or "". The sandbox keeps each
// kind at the workspace root; a nested one (pkg/CLAUDE.md, which agents
// read when they work in pkg) or a new file of a suffix kind
// (team.code-workspace) can only be seen once written, so the change
// waits on a card.
func steeringChange(e Effect) string {
	for _, c := range e.Changes {
		if c.Op == "delete" {
			continue
		}
		if k, _, ok := protect.SteeringKind(c.Path); ok {
			return c.Path + ", which " + k.Reader
		}
	}
	return ""
}
