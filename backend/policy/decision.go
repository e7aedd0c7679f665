package policy

import (
	"fmt"
	"strconv"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// Verdict is what happens to a call. Its order is strictness: Allow < Ask < Deny.
type Verdict int

const (
	Allow Verdict = iota
	Ask
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// MarshalText renders the verdict as allow, ask or deny.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses allow, ask or deny.
func (v *Verdict) UnmarshalText(b []byte) error {
	switch string(b) {
	case "allow":
		*v = Allow
	case "ask":
		*v = Ask
	case "deny":
		*v = Deny
	default:
		return fmt.Errorf("action %q is not allow, ask or deny", b)
	}
	return nil
}

// Source says where a rule came from.
type Source string

const (
	SourceBuiltin   Source = "builtin"
	SourceUser      Source = "user"
	SourceWorkspace Source = "workspace"
	SourceGrant     Source = "session-grant"
)

// RuleRef names the rule that decided a call.
type RuleRef struct {
	ID     string `json:"id"`
	Source Source `json:"source"`
	// File and Line locate user and workspace rules; empty for builtin rules
	// and grants.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

func (r RuleRef) String() string {
	switch {
	case r.File != "" && r.Line > 0:
		return fmt.Sprintf("%s rule %q (%s:%d)", r.Source, r.ID, r.File, r.Line)
	case r.File != "":
		return fmt.Sprintf("%s rule %q (%s)", r.Source, r.ID, r.File)
	}
	return fmt.Sprintf("%s rule %q", r.Source, r.ID)
}

// because is a decision's reason: the rule's own, naming the rule, or
// that it matched.
func (r RuleRef) because(reason string) string {
	if r.Source == SourceManaged {
		return OrgSays + ": " + r.plainBecause(reason)
	}
	return r.plainBecause(reason)
}

func (r RuleRef) plainBecause(reason string) string {
	if reason != "" {
		return reason + " (" + r.String() + ")"
	}
	return "matched " + r.String()
}

// RiskKind classifies a risk note attached to a decision.
type RiskKind string

const (
	// RiskInterpreter: the program runs arbitrary code it is given.
	RiskInterpreter RiskKind = "interpreter"
	// RiskSensitive: the call touches credentials or a metadata service.
	RiskSensitive RiskKind = "sensitive"
	// RiskDestructive: a pattern that discards work (force push, rm -r of the root…).
	RiskDestructive RiskKind = "destructive"
	// RiskProtected: a write to a file that configures code execution
	// (.git/hooks, shell rc files, agent config).
	RiskProtected RiskKind = "protected"
	// RiskOutsideWorkspace: the call reaches outside every workspace root.
	RiskOutsideWorkspace RiskKind = "outside-workspace"
	// RiskDrift: the call reaches for a credential, a metadata address or a
	// secret file that the person's request never mentions.
	RiskDrift RiskKind = "drift"
	// RiskUnconfined: the call runs outside the sandbox.
	RiskUnconfined RiskKind = "unconfined"
	// RiskNotRestorable is not set by this package: the checkpoint layer adds
	// it when it cannot snapshot what a call would change.
	RiskNotRestorable RiskKind = "not-restorable"
)

// Risk is one note shown to the person with an approval card. The card
// says what the kind means ("Runs code: allowing this grants arbitrary
// code execution"); Detail says only what this call does, so the line
// does not say the same thing twice.
type Risk struct {
	Kind   RiskKind `json:"kind"`
	Detail string   `json:"detail"`
	// consequence is what the risk means, added to Detail where the risk
	// is the decision's reason and stands alone (see reason).
	consequence string
	// names are the literal strings a user rule must contain to count as
	// naming this risk explicitly (see Rule.names).
	names []string
	field ruleField
	// steering is the kind of steering file a protected write reaches
	// (nil for other risks): an instruction file's risk goes when the
	// person's own prompt asks for it (see steeringAsked).
	steering     *protect.Steer
	steeringName string // the kind's name the write reaches
}

// reason is the risk as a decision's reason: the detail and, when the
// risk has one, what it means.
func (k Risk) reason() string {
	if k.consequence == "" {
		return k.Detail
	}
	return k.Detail + ": " + k.consequence
}

// Decision is Decide's answer.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason"`
	Rule    RuleRef `json:"rule"`
	Risks   []Risk  `json:"risks,omitempty"`
	// ReadOnly: the call only reads, so nothing of it needs a checkpoint.
	ReadOnly bool `json:"read_only,omitempty"`
	// SandboxHides are credential paths the call names that its sandbox
	// hides from every command, whatever the person decides: an allow
	// cannot expose them, and a rule for them would do nothing.
	SandboxHides []string `json:"sandbox_hides,omitempty"`
}

// AddRisk appends a note, for layers after policy (e.g. not restorable).
func (d *Decision) AddRisk(kind RiskKind, detail string) {
	d.Risks = append(d.Risks, Risk{Kind: kind, Detail: detail})
}
