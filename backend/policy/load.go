package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/tomlkeys"
	"github.com/pelletier/go-toml/v2"
)

// WorkspacePolicyFile is where a workspace ships its tighten-only policy.
const WorkspacePolicyFile = ".gatehouse/policy.toml"

// Policy is a loaded, compiled policy. It is immutable and safe for
// concurrent use.
type Policy struct {
	user        []Rule
	workspace   []Rule
	userFx      []EffectRule
	workspaceFx []EffectRule
	trustedDirs map[string]bool
	notices     []string
	// managed is the organisation's policy (managed.go): its rules are a
	// floor nothing else lowers; a broken file refuses every call.
	managed managed
}

// userFile is the schema of the person's policy file.
type userFile struct {
	// TrustedBinDirs replaces the directories the harmless-command allowlist
	// trusts.
	TrustedBinDirs []string     `toml:"trusted_bin_dirs"`
	Rules          []fileRule   `toml:"rule"`
	Effects        []fileEffect `toml:"effect"`
}

// workspaceFile is the schema of .gatehouse/policy.toml: rules only.
type workspaceFile struct {
	Rules   []fileRule   `toml:"rule"`
	Effects []fileEffect `toml:"effect"`
}

type fileRule struct {
	ID      string   `toml:"id"`
	Action  string   `toml:"action"`
	Tool    string   `toml:"tool"`
	Binary  string   `toml:"binary"`
	Args    []string `toml:"args"`
	Paths   []string `toml:"paths"`
	Domains []string `toml:"domains"`
	Ports   []int    `toml:"ports"`
	Reason  string   `toml:"reason"`
}

// Builtin returns the policy with no user or workspace files.
func Builtin() *Policy {
	p := &Policy{trustedDirs: set(defaultTrustedBinDirs...)}
	return p
}

// Load reads the organisation's managed policy (ManagedPath), the user's
// policy file (a missing file is an empty policy) and each workspace root's
// .gatehouse/policy.toml. Workspace allow rules are dropped with a notice
// (see Notices), because a workspace can only tighten.
func Load(userPath string, workspaceRoots []string) (*Policy, error) {
	return LoadWith(ManagedPath(), userPath, workspaceRoots)
}

// LoadWith is Load with the managed policy read from managedPath ("" for
// none). A managed file that does not load is no error here: the policy
// refuses every call instead (fail closed), so the daemon still starts and
// says why.
func LoadWith(managedPath, userPath string, workspaceRoots []string) (*Policy, error) {
	p := Builtin()
	var notices []string
	p.managed, notices = loadManaged(managedPath)
	p.notices = append(p.notices, notices...)
	if userPath != "" {
		data, err := os.ReadFile(userPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("cannot read the policy file %s: %w", userPath, err)
		default:
			uf, rules, err := parseUser(data, userPath)
			if err != nil {
				return nil, err
			}
			p.user = rules
			if p.userFx, err = buildEffects(data, userPath, uf.Effects, SourceUser); err != nil {
				return nil, err
			}
			if len(uf.TrustedBinDirs) > 0 {
				p.trustedDirs = make(map[string]bool, len(uf.TrustedBinDirs))
				for _, d := range uf.TrustedBinDirs {
					if !filepath.IsAbs(d) {
						return nil, fmt.Errorf("%s: trusted_bin_dirs entry %q must be an absolute path", userPath, d)
					}
					p.trustedDirs[filepath.Clean(d)] = true
				}
			}
		}
	}
	for _, root := range workspaceRoots {
		file := filepath.Join(root, WorkspacePolicyFile)
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the workspace policy %s: %w", file, err)
		}
		w, err := parseWorkspace(data, file, filepath.Clean(root))
		if err != nil {
			return nil, err
		}
		p.workspace = append(p.workspace, w.rules...)
		p.workspaceFx = append(p.workspaceFx, w.effects...)
		p.notices = append(p.notices, w.notices...)
	}
	return p, nil
}

// Notices are messages for the person about rules Load ignored.
func (p *Policy) Notices() []string { return append([]string(nil), p.notices...) }

func parseUser(data []byte, file string) (userFile, []Rule, error) {
	var uf userFile
	if err := decodeStrict(data, file, &uf); err != nil {
		return uf, nil, err
	}
	rules, err := buildRules(data, file, uf.Rules, SourceUser, "")
	return uf, rules, err
}

// workspacePolicy is what a workspace's policy file may add.
type workspacePolicy struct {
	rules   []Rule
	effects []EffectRule
	notices []string
}

// parseWorkspace reads a workspace's policy file. Its allow rules and
// allow effects are dropped, each with a notice: a workspace can only
// tighten.
func parseWorkspace(data []byte, file, root string) (workspacePolicy, error) {
	var wf workspaceFile
	if err := decodeStrict(data, file, &wf); err != nil {
		return workspacePolicy{}, err
	}
	rules, err := buildRules(data, file, wf.Rules, SourceWorkspace, root)
	if err != nil {
		return workspacePolicy{}, err
	}
	effects, err := buildEffects(data, file, wf.Effects, SourceWorkspace)
	if err != nil {
		return workspacePolicy{}, err
	}
	var w workspacePolicy
	w.rules = dropAllows(rules, &w.notices, func(r Rule) (Verdict, string) {
		return r.Action, fmt.Sprintf("%s:%d: allow rule %q ignored, because a workspace policy can only tighten (ask or deny)", file, r.line, r.ID)
	})
	w.effects = dropAllows(effects, &w.notices, func(r EffectRule) (Verdict, string) {
		return r.Action, fmt.Sprintf("%s:%d: allow effect %q ignored, because a workspace policy can only tighten", file, r.line, r.ID)
	})
	return w, nil
}

// dropAllows keeps the rules whose action is not allow, and adds a
// notice for each one it drops.
func dropAllows[T any](all []T, notices *[]string, action func(T) (Verdict, string)) []T {
	var keep []T
	for _, r := range all {
		if v, notice := action(r); v == Allow {
			*notices = append(*notices, notice)
			continue
		}
		keep = append(keep, r)
	}
	return keep
}

// decodeStrict decodes TOML, rejecting unknown keys, with errors that name
// the file, line and key.
func decodeStrict(data []byte, file string, v any) error {
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := &sm.Errors[0]
		row, _ := e.Position()
		path := e.Key()
		key, table := path[len(path)-1], path[:len(path)-1]
		return fmt.Errorf("%s:%d: unknown key %q%s; remove it or check its spelling", file, row, strings.Join(path, "."),
			tomlkeys.Suggest(reflect.TypeOf(v).Elem(), table, key))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("%s:%d:%d: %s; fix this line and reload", file, row, col, strings.TrimPrefix(de.Error(), "toml: "))
	}
	return fmt.Errorf("%s: %w", file, err)
}

func buildRules(data []byte, file string, frs []fileRule, src Source, base string) ([]Rule, error) {
	lines := ruleLines(data)
	rules := make([]Rule, 0, len(frs))
	for i, fr := range frs {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		r := Rule{ID: fr.ID, Tool: fr.Tool, Binary: fr.Binary, Args: fr.Args, Paths: fr.Paths,
			Domains: fr.Domains, Ports: fr.Ports, Reason: fr.Reason, source: src, file: file, line: line}
		if r.ID == "" {
			r.ID = fmt.Sprintf("rule-%d", i+1)
		}
		if fr.Action == "" {
			return nil, fmt.Errorf("%s:%d: rule %q has no action; set action = \"allow\", \"ask\" or \"deny\"", file, line, r.ID)
		}
		if err := r.Action.UnmarshalText([]byte(fr.Action)); err != nil {
			return nil, fmt.Errorf("%s:%d: rule %q: %w", file, line, r.ID, err)
		}
		if err := r.compile(base); err != nil {
			return nil, fmt.Errorf("%s:%d: rule %q: %w", file, line, r.ID, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// ruleLines returns the line of each [[rule]] header, in order, so decisions
// can point at the rule that fired.
func ruleLines(data []byte) []int { return tableLines(data, "rule") }
