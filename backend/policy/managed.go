package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// SourceManaged marks rules from the organisation's managed policy.
const SourceManaged Source = "managed"

// ManagedPathTestOnlyEnv is TEST-ONLY: it moves the managed policy file
// so tests need not write /etc. It is honoured only where the real file
// does not exist, so it cannot be used to step around an organisation's
// policy, and the ownership checks still apply, so it cannot turn a file
// the person owns into a managed one.
const ManagedPathTestOnlyEnv = "GATEHOUSE_TEST_ONLY_MANAGED_POLICY"

// OrgSays prefixes every reason a managed rule gives: cards and the
// Policy screen show it.
const OrgSays = "set by your organisation"

// ManagedPath is where the organisation's policy lives: root-owned, so
// nothing the person or an agent runs as them can change it.
func ManagedPath() string {
	real := "/etc/gatehouse/policy.toml"
	if runtime.GOOS == "darwin" {
		real = "/Library/Application Support/Gatehouse/policy.toml"
	}
	if _, err := os.Lstat(real); err == nil {
		return real
	}
	if p := os.Getenv(ManagedPathTestOnlyEnv); p != "" {
		return p
	}
	return real
}

// managedFile is the schema of the managed policy: rules, which apply
// before every other (see decide's floor).
type managedFile struct {
	Rules []fileRule `toml:"rule"`
}

// managed is the organisation's policy as loaded.
type managed struct {
	path  string
	rules []Rule
	// err is a managed file that exists but cannot be read or parsed:
	// every call is refused until it is fixed (fail closed).
	err error
	// stamp tells a changed file from the one loaded (see Changed).
	stamp string
}

// stampOf is what changes when the file is edited, replaced or removed.
func stampOf(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "absent"
	}
	return st.ModTime().String() + "/" + strconv.FormatInt(st.Size(), 10) + "/" + st.Mode().String()
}

// loadManaged reads the managed policy at path. A missing file is no
// managed policy. A file that is not root-owned, or that group or others
// may write (or in such a directory), is not managed — whoever can write
// it could loosen it — and is ignored with a notice.
func loadManaged(path string) (managed, []string) {
	m := managed{path: path, stamp: stampOf(path)}
	if path == "" {
		return m, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		m.err = fmt.Errorf("cannot resolve %s: %w", path, err)
		return m, nil
	}
	if why := notManaged(real); why != "" {
		return managed{path: path, stamp: m.stamp}, []string{fmt.Sprintf("%s is not a managed policy (%s), so anyone who can write it could loosen it: ignored", path, why)}
	}
	data, err := os.ReadFile(real)
	if err != nil {
		m.err = fmt.Errorf("cannot read %s: %w", path, err)
		return m, nil
	}
	var mf managedFile
	if err := decodeStrict(data, path, &mf); err != nil {
		m.err = err
		return m, nil
	}
	rules, err := buildRules(data, path, mf.Rules, SourceManaged, "")
	if err != nil {
		m.err = err
		return m, nil
	}
	m.rules = rules
	return m, nil
}

// notManaged says why the file at path (symlinks resolved) is not one
// only root can change; "" when it is.
func notManaged(path string) string {
	for _, p := range []string{path, filepath.Dir(path)} {
		st, err := os.Stat(p)
		if err != nil {
			return err.Error()
		}
		uid, ok := ownerOf(st)
		switch {
		case !ok:
			return "its owner cannot be read on this system"
		case uid != 0:
			return fmt.Sprintf("%s is owned by uid %d, not root", p, uid)
		case st.Mode().Perm()&0o022 != 0:
			return fmt.Sprintf("%s is writable by group or others (mode %04o)", p, st.Mode().Perm())
		}
	}
	return ""
}

// refusal is the decision while the managed file is broken.
func (m *managed) refusal() Decision {
	return Decision{Verdict: Deny, Rule: RuleRef{ID: "managed-policy-invalid", Source: SourceManaged, File: m.path},
		Reason: fmt.Sprintf("%s: the organisation's managed policy does not load (%v); every call is refused until it is fixed", OrgSays, m.err)}
}

// floor raises d to the strictest managed rule that matches: nothing
// before it (user rules, session and "always" grants, the workspace, the
// mode's baseline) can loosen what the organisation set.
func (m *managed) floor(d *Decision, match func(*Rule) bool) {
	for i := range m.rules {
		r := &m.rules[i]
		if r.Action > d.Verdict && match(r) {
			d.Verdict, d.Rule, d.Reason = r.Action, r.ref(), r.ref().because(r.Reason)
		}
	}
}

// ManagedChanged reports whether the managed file differs from the one p
// was loaded with, so the holder reloads a fixed (or newly broken) file
// without a restart.
func (p *Policy) ManagedChanged() bool {
	return stampOf(p.managed.path) != p.managed.stamp
}

// ManagedError is the managed file's load error, nil when it loaded (or
// there is none).
func (p *Policy) ManagedError() error { return p.managed.err }
