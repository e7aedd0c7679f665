package policy

import "fmt"

func builtinRef(id string) RuleRef { return RuleRef{ID: id, Source: SourceBuiltin} }

// Decide returns the verdict for call c in session s. See the package
// documentation for the precedence it applies.
func (p *Policy) Decide(s Session, c Action) Decision {
	cls := classOf(c.Tool)
	switch cls {
	case classHuman:
		return Decision{Verdict: Allow, Reason: "asking the person is always allowed", Rule: builtinRef("ask-human")}
	case classUnknown:
		return Decision{Verdict: Deny, Reason: fmt.Sprintf("%q is not a Gatehouse tool", c.Tool), Rule: builtinRef("unknown-tool")}
	}
	if p.managed.err != nil {
		return p.managed.refusal()
	}
	mode, err := ParseMode(string(s.Mode))
	if err != nil {
		return Decision{Verdict: Deny, Reason: err.Error(), Rule: builtinRef("unknown-mode")}
	}
	a := p.analyze(&s, &c, cls)
	if cls == classFetch && a.badURL {
		return Decision{Verdict: Deny, Reason: "the URL could not be parsed; send an absolute http or https URL", Rule: builtinRef("bad-url")}
	}
	d := p.decide(s, mode, a)
	if cls == classCommand && s.Sandboxed && !c.Unconfined {
		d.SandboxHides = a.outsideSecrets
	}
	return d
}

// decide is Decide once the call is analysed.
func (p *Policy) decide(s Session, mode Mode, a *analysis) Decision {
	best := p.bestRule(s, func(r *Rule) bool { return r.matches(a) })

	var d Decision
	if best != nil {
		d = Decision{Verdict: best.Action, Rule: best.ref(), Reason: best.ref().because(best.Reason)}
		if d.Verdict == Allow {
			for _, k := range a.risks {
				if sticky(k.Kind) && !best.names(k) {
					d = Decision{Verdict: Ask, Rule: builtinRef(string(k.Kind)),
						Reason: fmt.Sprintf("%s; %s does not name it, so it still asks", k.reason(), best.ref())}
					break
				}
			}
		}
		if mode == ModePlan && d.Verdict != Deny && !planPermits(a) {
			d = Decision{Verdict: Deny, Rule: builtinRef("plan-mode"),
				Reason: "plan mode is read-only; switch modes to let the agent change things"}
		}
	} else {
		d = baseline(mode, s.Sandboxed, a)
		// An ask names the risk too, so the approval card explains itself;
		// in the boundary modes an ask already names the boundary crossed.
		if d.Verdict == Allow || (d.Verdict == Ask && !boundaryMode(mode)) {
			for _, k := range a.risks {
				if sticky(k.Kind) && !boundedBySandbox(mode, s.Sandboxed, a, k) {
					d = Decision{Verdict: Ask, Rule: builtinRef(string(k.Kind)), Reason: k.reason()}
					break
				}
			}
		}
	}

	if r, ok := drift(s.Goal, a.risks); ok {
		a.risks = append(a.risks, r)
		if d.Verdict == Allow {
			d = Decision{Verdict: Ask, Rule: builtinRef("goal-drift"), Reason: r.Detail}
		}
	}

	// Workspace rules can only raise the verdict.
	for i := range p.workspace {
		r := &p.workspace[i]
		if r.Action > d.Verdict && r.matches(a) {
			d.Verdict, d.Rule, d.Reason = r.Action, r.ref(), r.ref().because(r.Reason)
		}
	}

	// The organisation's rules last, so that nothing above lowers them.
	p.managed.floor(&d, func(r *Rule) bool { return r.matches(a) })

	if mode == ModeUnattended && d.Verdict == Ask {
		d.Verdict = Deny
		d.Reason = "unattended mode denies what would need approval: " + d.Reason
	}
	d.Risks = a.risks
	d.ReadOnly = readOnly(a)
	return d
}

// readOnly: the call only reads (a read tool, or a builtin read-only
// command), so it changes nothing a checkpoint would have to record.
func readOnly(a *analysis) bool {
	switch a.class {
	case classRead, classHuman:
		return true
	case classCommand:
		return a.harmless != nil && a.harmless.readOnly && !a.call.Unconfined
	}
	return false
}

// planPermits is plan mode's ceiling: reads, fetches and builtin read-only
// commands.
func planPermits(a *analysis) bool {
	switch a.class {
	case classRead, classFetch:
		return true
	case classCommand:
		return a.harmless != nil && a.harmless.readOnly
	}
	return false
}

// boundedBySandbox: in the boundary modes (auto, unattended) a command's
// risk that the sandbox itself bounds does not ask. An interpreter, a
// credential-looking argument or a destructive pattern inside the
// workspace can do no more than the sandbox lets any program do, and
// every change is checkpointed and undoable. What leaves the workspace
// (a push that rewrites remote history) or runs without the sandbox still
// asks.
func boundedBySandbox(mode Mode, sandboxed bool, a *analysis, k Risk) bool {
	if !boundaryMode(mode) || !sandboxed || a.class != classCommand || a.call.Unconfined {
		return false
	}
	switch k.Kind {
	case RiskInterpreter, RiskSensitive:
		return true
	case RiskDestructive:
		return !leavesWorkspace(k)
	}
	return false
}

// boundaryMode: modes that ask only where a call crosses the boundary.
func boundaryMode(m Mode) bool { return m == ModeAuto || m == ModeUnattended }

// baseline is the mode's answer when no user rule or grant matched.
func baseline(mode Mode, sandboxed bool, a *analysis) Decision {
	if boundaryMode(mode) {
		return boundaryBaseline(mode, sandboxed, a)
	}
	deny := func(id, why string) Decision { return Decision{Verdict: Deny, Rule: builtinRef(id), Reason: why} }
	ask := func(id, why string) Decision { return Decision{Verdict: Ask, Rule: builtinRef(id), Reason: why} }
	allow := func(id, why string) Decision { return Decision{Verdict: Allow, Rule: builtinRef(id), Reason: why} }
	plan := mode == ModePlan
	switch a.class {
	case classRead:
		switch {
		case a.inWorkspace:
			return allow("workspace-read", "reads inside the workspace are allowed")
		case plan:
			return deny("plan-mode", "plan mode only reads inside the workspace")
		}
		return ask("outside-workspace", "reading outside the workspace needs approval")
	case classWrite:
		switch {
		case plan:
			return deny("plan-mode", "plan mode is read-only; switch modes to let the agent edit files")
		case !a.inWorkspace:
			return ask("outside-workspace", "writing outside the workspace needs approval")
		case mode == ModeAcceptEdits || mode == ModeUnattended:
			return allow("workspace-edit", "edits inside the workspace are allowed in "+string(mode)+" mode")
		}
		return ask("workspace-edit", "edits need approval in default mode; accept-edits mode allows them")
	case classCommand:
		switch {
		case a.harmless != nil && (!plan || a.harmless.readOnly):
			return allow("harmless-command", a.base+" is on the harmless-command list and runs inside the sandbox")
		case plan:
			return deny("plan-mode", "plan mode only runs read-only commands; switch modes to run "+a.base)
		}
		return ask("command", "running "+a.base+" needs approval")
	case classFetch:
		if plan {
			return deny("plan-mode", "plan mode fetches only domains a rule allows")
		}
		return ask("fetch", "fetching from "+a.host+" needs approval; a domains rule can allow it")
	}
	return deny("unknown-tool", "unknown tool")
}

// boundaryBaseline is auto mode's answer (and unattended's, whose asks
// become denials): only what crosses the boundary asks.
func boundaryBaseline(mode Mode, sandboxed bool, a *analysis) Decision {
	ask := func(id, why string) Decision { return Decision{Verdict: Ask, Rule: builtinRef(id), Reason: why} }
	allow := func(id, why string) Decision { return Decision{Verdict: Allow, Rule: builtinRef(id), Reason: why} }
	switch a.class {
	case classRead:
		if a.inWorkspace {
			return allow("workspace-read", "reads inside the workspace are allowed")
		}
		return ask("outside-workspace", "reading outside the workspace needs approval")
	case classWrite:
		switch {
		case !a.inWorkspace:
			return ask("outside-workspace", "writing outside the workspace needs approval")
		case !sandboxed:
			return ask("no-sandbox", "with no sandbox, edits need approval")
		}
		return allow("workspace-edit", "edits inside the workspace are allowed in "+string(mode)+" mode: each is checkpointed and can be undone")
	case classCommand:
		switch {
		case a.call.Unconfined:
			return ask("unconfined", a.base+" runs outside Gatehouse's sandbox, so it needs approval")
		case !sandboxed:
			return ask("no-sandbox", "with no sandbox, running "+a.base+" needs approval")
		}
		return allow("sandboxed-command", a.base+" runs inside the sandbox: the network only through Gatehouse's proxy, writes only in the workspace, every change checkpointed")
	case classFetch:
		return ask("fetch", "fetching from "+a.host+" needs approval; a domains rule can allow it")
	}
	return Decision{Verdict: Deny, Rule: builtinRef("unknown-tool"), Reason: "unknown tool"}
}

// bestRule picks among the organisation's and the user's rules and the
// session's grants (allows only) the one that decides: the most specific
// that matches, then the strictest. A grant that does not compile grants
// nothing. (The organisation's ask and deny rules apply again at the end,
// as a floor: see managed.floor.)
func (p *Policy) bestRule(s Session, match func(*Rule) bool) *Rule {
	var best *Rule
	consider := func(r *Rule) {
		if r.c == nil && r.compile("") != nil {
			return // a malformed grant grants nothing
		}
		if !match(r) {
			return
		}
		if best == nil || r.c.specificity > best.c.specificity ||
			(r.c.specificity == best.c.specificity && r.Action > best.Action) {
			best = r
		}
	}
	for i := range p.managed.rules {
		// Its asks and denies are the floor (managed.floor), applied last.
		if p.managed.rules[i].Action == Allow {
			consider(&p.managed.rules[i])
		}
	}
	for i := range p.user {
		consider(&p.user[i])
	}
	for i := range s.Grants {
		g := s.Grants[i] // copy: compiling must not race on the caller's slice
		g.source = SourceGrant
		if g.Action == Allow {
			consider(&g)
		}
	}
	return best
}
