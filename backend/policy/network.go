package policy

import (
	"fmt"
	"slices"
	"strconv"
)

// ToolNetwork is not an MCP tool: its rules decide which domains a
// sandboxed command may reach through the egress proxy.
//
//	[[rule]]
//	action = "allow"
//	tool = "network"
//	domains = ["pkgs.example.test", "*.example.test"]
//	ports = [8443]          # optional
//
// Without ports a rule covers the web's ports, 443 and 80; with ports,
// exactly those. Nothing is built in: every domain a command reaches is
// one the person allowed, by a rule or on a card.
const ToolNetwork = "network"

// webPorts are what a network rule without ports covers.
var webPorts = []int{443, 80}

func (r *Rule) compileNetwork() error {
	if r.Tool != ToolNetwork {
		return fmt.Errorf("ports only apply to tool = \"network\"")
	}
	if r.Binary != "" || len(r.Args) > 0 || len(r.Paths) > 0 {
		return fmt.Errorf("a network rule takes domains and ports only, not binary, args or paths")
	}
	if len(r.Domains) == 0 {
		return fmt.Errorf("a network rule needs domains, such as domains = [\"pkgs.example.test\"]")
	}
	c := &compiledRule{}
	longest, err := c.addDomains(r.Domains)
	if err != nil {
		return err
	}
	for _, p := range r.Ports {
		if p < 1 || p > 65535 {
			return fmt.Errorf("port %d is not between 1 and 65535", p)
		}
	}
	c.specificity = longest + 1
	if len(r.Ports) > 0 {
		c.specificity += 10
	}
	r.c = c
	return nil
}

// matchesNetwork reports whether network rule r covers domain:port.
func (r *Rule) matchesNetwork(domain string, port int) bool {
	if r.Tool != ToolNetwork || r.c == nil {
		return false
	}
	ports := r.Ports
	if len(ports) == 0 {
		ports = webPorts
	}
	if !slices.Contains(ports, port) {
		return false
	}
	for i := range r.c.domains {
		if r.c.domains[i].match(domain) {
			return true
		}
	}
	return false
}

// DecideNetwork is Decide for a sandboxed command's connection to
// domain:port through the egress proxy. Network rules among the user's
// rules and the session's grants decide as in Decide (most specific,
// then strictest); without one the answer is ask (deny in plan mode);
// workspace rules can only raise it, and unattended mode turns an ask
// into deny.
func (p *Policy) DecideNetwork(s Session, domain string, port int) Decision {
	mode := s.Mode
	if mode == "" {
		mode = ModeDefault
	}
	if p.managed.err != nil {
		return p.managed.refusal()
	}
	if _, err := ParseMode(string(mode)); err != nil {
		return Decision{Verdict: Deny, Reason: err.Error(), Rule: builtinRef("unknown-mode")}
	}
	best := p.bestRule(s, func(r *Rule) bool { return r.matchesNetwork(domain, port) })
	where := domain + ":" + strconv.Itoa(port)
	var d Decision
	switch {
	case best != nil:
		d = Decision{Verdict: best.Action, Rule: best.ref(), Reason: best.ref().because(best.Reason)}
	case mode == ModePlan:
		d = Decision{Verdict: Deny, Rule: builtinRef("plan-mode"), Reason: "plan mode does not open the network to " + where}
	default:
		d = Decision{Verdict: Ask, Rule: builtinRef("network"), Reason: "connecting to " + where + " needs approval; a network rule can allow it"}
	}
	for i := range p.workspace {
		r := &p.workspace[i]
		if r.Action > d.Verdict && r.matchesNetwork(domain, port) {
			d.Verdict, d.Rule, d.Reason = r.Action, r.ref(), r.ref().because(r.Reason)
		}
	}
	p.managed.floor(&d, func(r *Rule) bool { return r.matchesNetwork(domain, port) })
	if mode == ModeUnattended && d.Verdict == Ask {
		d.Verdict = Deny
		d.Reason = "unattended mode denies what would need approval: " + d.Reason
	}
	return d
}

// Unruled reports whether no rule decided d, a DecideNetwork verdict: it
// is the baseline's for a connection none covers (a card, or that card's
// denial in unattended mode). A connection the person approved otherwise
// (a host port they listed, an agent's model API) may then go ahead;
// one a rule denies may not.
func (d Decision) Unruled() bool { return d.Rule == builtinRef("network") }

// PlanRefusal reports whether d is plan mode's refusal of the network,
// which no rule decided either.
func (d Decision) PlanRefusal() bool { return d.Rule == builtinRef("plan-mode") }

// NetworkRule is the allow rule a network card widens to: the domain, and
// the port unless it is one of the web's (which a rule without ports
// covers).
func NetworkRule(domain string, port int, scope Scope) Rule {
	r := Rule{ID: "allow-network-" + domain, Action: Allow, Tool: ToolNetwork, Domains: []string{domain}, source: SourceGrant, Reason: "approved for this session"}
	if !slices.Contains(webPorts, port) {
		r.Ports = []int{port}
		r.ID += "-" + strconv.Itoa(port)
	}
	if scope == ScopeAlways {
		r.source, r.Reason = SourceUser, "approved always"
	}
	_ = r.compile("")
	return r
}
