package policy

import (
	"net/url"
	"path"
	"strings"
)

// analysis is what Decide works out about a call once, before matching rules.
type analysis struct {
	sess  *Session
	call  *Action
	class toolClass

	base     string   // program basename
	args     []string // argv[1:]
	pathArgs []string // path-like arguments, resolved
	host     string   // fetch_url host, lowercase
	badURL   bool

	inWorkspace bool // every path (or cwd and path args) inside a workspace
	harmless    *harmless
	trusted     bool // binary lives in a trusted bin dir
	risks       []Risk
	// outsideSecrets are credential paths a command names outside every
	// workspace: a sandboxed command cannot see them.
	outsideSecrets []string
}

func (p *Policy) analyze(s *Session, c *Action, cls toolClass) *analysis {
	a := &analysis{sess: s, call: c, class: cls}
	switch cls {
	case classRead, classWrite:
		a.inWorkspace = len(c.Paths) > 0
		for _, fp := range c.Paths {
			if !a.insideWorkspace(fp) {
				a.inWorkspace = false
			}
			if r, ok := sensitivePath(fp); ok {
				a.risks = append(a.risks, r)
			}
			if cls == classWrite {
				if r, ok := protectedPath(fp); ok {
					if !steeringAsked(s.Goal, r) {
						a.risks = append(a.risks, r)
					}
				} else if r, ok := sessionProtected(fp, s.Protected); ok {
					a.risks = append(a.risks, r)
				}
			}
		}
		if !a.inWorkspace {
			a.risks = append(a.risks, Risk{Kind: RiskOutsideWorkspace, Detail: "the path is outside every workspace"})
		}
	case classCommand:
		p.analyzeCommand(a)
	case classFetch:
		u, err := url.Parse(c.URL)
		if err != nil || u.Host == "" {
			a.badURL = true
			break
		}
		a.host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if isMetadataHost(a.host) {
			a.risks = append(a.risks, Risk{Kind: RiskSensitive, field: fieldText, names: []string{a.host},
				Detail: a.host + " is a cloud metadata service that hands out credentials"})
		} else if r, ok := sensitiveText(u.RawPath + u.Path + "?" + u.RawQuery); ok {
			r.Detail = "the URL mentions " + r.names[0] + ", so it may carry a credential"
			a.risks = append(a.risks, r)
		}
	}
	return a
}

func (p *Policy) analyzeCommand(a *analysis) {
	c := a.call
	s := a.sess
	if len(c.Argv) > 0 {
		a.args = c.Argv[1:]
	}
	switch {
	case c.Binary != "":
		a.base = path.Base(c.Binary)
		a.trusted = p.trustedDirs[path.Dir(c.Binary)]
	case len(c.Argv) > 0:
		a.base = path.Base(c.Argv[0])
	}
	a.inWorkspace = c.Cwd != "" && a.insideWorkspace(c.Cwd)
	words := shellScriptWords(a.base, a.args)
	for _, arg := range words {
		if pa, ok := looksLikePath(arg); ok {
			if rp := resolveArg(pa, c.Cwd, s.Home); rp != "" {
				a.pathArgs = append(a.pathArgs, rp)
				if !a.insideWorkspace(rp) {
					a.inWorkspace = false
				}
			}
		}
	}
	// Order matters only for which risk explains an ask first.
	if r, ok := destructiveRisk(a.base, a.args, c.Cwd, s.Home, s.Workspaces); ok {
		a.risks = append(a.risks, r)
	}
	sens := false
	for _, rp := range a.pathArgs {
		if r, ok := sensitivePath(rp); ok {
			a.risks = append(a.risks, r)
			sens = true
			if !a.insideWorkspace(rp) {
				a.outsideSecrets = append(a.outsideSecrets, rp)
			}
			break
		}
	}
	if !sens {
		for _, arg := range words {
			if _, isPath := looksLikePath(arg); isPath && !strings.Contains(arg, "=") {
				continue // handled by sensitivePath above
			}
			if r, ok := sensitiveText(arg); ok {
				a.risks = append(a.risks, r)
				break
			}
		}
	}
	if r, ok := interpreterRisk(a.base, a.args); ok {
		a.risks = append(a.risks, r)
	}
	if c.Unconfined {
		a.risks = append(a.risks, Risk{Kind: RiskUnconfined, field: fieldBinary, names: []string{a.base},
			Detail: "it runs outside Gatehouse's sandbox, so nothing bounds what it does"})
	}
	if !a.inWorkspace {
		a.risks = append(a.risks, Risk{Kind: RiskOutsideWorkspace, Detail: "the command works outside every workspace"})
	}
	if h, ok := harmlessCommands[a.base]; ok && a.trusted && a.inWorkspace && h.accepts(a.args) {
		a.harmless = h
	}
}

func (a *analysis) insideWorkspace(p string) bool {
	for _, w := range a.sess.Workspaces {
		if within(p, w) {
			return true
		}
	}
	return false
}

// sticky reports whether a risk class can only be loosened by a rule naming it.
func sticky(k RiskKind) bool {
	switch k {
	case RiskInterpreter, RiskSensitive, RiskDestructive, RiskProtected, RiskUnconfined, RiskDrift:
		return true
	}
	return false
}
