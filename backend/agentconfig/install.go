package agentconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
)

// Outcome is what an install or uninstall did to one file.
type Outcome string

const (
	Unchanged Outcome = "unchanged"
	Created   Outcome = "created"
	Written   Outcome = "written"
	// Restored: the file was as install left it and is back byte for byte.
	Restored Outcome = "restored"
	// Removed: install had created the file; uninstall deleted it.
	Removed Outcome = "removed"
	// Stripped: the person edited the file since install, so only
	// Gatehouse's entries were taken out.
	Stripped Outcome = "stripped"
)

// Change is one file's outcome.
type Change struct {
	Path    string  `json:"path"`
	Outcome Outcome `json:"outcome"`
}

// Result sums up an install or uninstall.
type Result struct {
	Agent   Agent    `json:"agent"`
	Scope   Scope    `json:"scope"`
	Changes []Change `json:"changes"`
}

// Changed reports whether any file changed.
func (r Result) Changed() bool {
	for _, c := range r.Changes {
		if c.Outcome != Unchanged {
			return true
		}
	}
	return false
}

// ErrNotInstalled is an uninstall with nothing to remove.
var ErrNotInstalled = errors.New("not installed")

// Installer wires agents into their configs and keeps its records under
// DataDir.
type Installer struct {
	Env     Env
	DataDir string
}

// snapshot is every target's current state.
type snapshot struct {
	cur   files
	modes map[string]fs.FileMode
}

func (in Installer) read(ts []target) (snapshot, error) {
	s := snapshot{cur: files{}, modes: map[string]fs.FileMode{}}
	for _, t := range ts {
		b, err := os.ReadFile(t.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return s, &Refusal{Msg: fmt.Sprintf("cannot read %s (%v); nothing was changed", t.Path, errors.Unwrap(err))}
		}
		if err := validate(t, b); err != nil {
			return s, err
		}
		st, err := os.Stat(t.Path)
		if err != nil {
			return s, fmt.Errorf("stat %s: %w", t.Path, err)
		}
		s.cur[t.Path] = b
		s.modes[t.Path] = st.Mode().Perm()
	}
	return s, nil
}

// validate refuses a file that is not valid JSON/TOML, naming its line.
func validate(t target, b []byte) error {
	var err error
	kind := "JSON"
	switch t.Format {
	case formatTOML:
		kind = "TOML"
		_, err = parseTOML(b)
	default:
		_, err = parseJSONDoc(b, t.Format == formatJSONC)
	}
	var se *errSyntax
	if errors.As(err, &se) {
		return &Refusal{Msg: fmt.Sprintf("%s is not valid %s (line %d); fix it and run the command again; nothing was changed", t.Path, kind, se.Line)}
	}
	return err
}

// Install writes Gatehouse's entries into agent a's config for scope. A
// second install with the same wiring changes nothing.
func (in Installer) Install(a Agent, scope Scope, w Wiring) (Result, error) {
	res := Result{Agent: a, Scope: scope}
	if err := w.check(); err != nil {
		return res, err
	}
	def := definitionOf(a)
	ts := def.targets(in.Env, scope)
	snap, err := in.read(ts)
	if err != nil {
		return res, err
	}
	next, err := def.add(in.Env, scope, w, snap.cur)
	if err != nil {
		return res, err
	}
	stripped, err := def.strip(in.Env, scope, snap.cur)
	if err != nil {
		return res, err
	}
	rec, err := loadRecord(in.DataDir, a, scope)
	if err != nil {
		return res, err
	}
	if rec == nil {
		rec = &record{Agent: a, Scope: scope}
	}
	type write struct {
		t    target
		data []byte
	}
	var writes []write
	for _, t := range ts {
		cur, existed := snap.cur[t.Path]
		want, ok := next[t.Path]
		if !ok || (existed && bytes.Equal(cur, want)) {
			res.Changes = append(res.Changes, Change{t.Path, Unchanged})
			continue
		}
		fr := rec.file(t.Path)
		if fr == nil || fr.Installed != sum(cur) || !existed {
			// The file is not as a previous install left it: what to
			// restore later is the file as it is now, minus any
			// Gatehouse entries the person copied in by hand.
			orig, had := stripped[t.Path]
			nf := fileRecord{Path: t.Path, Existed: existed && had, Mode: snap.modes[t.Path], Original: orig}
			if fr == nil {
				rec.Files = append(rec.Files, nf)
				fr = &rec.Files[len(rec.Files)-1]
			} else {
				*fr = nf
			}
		}
		fr.Installed = sum(want)
		writes = append(writes, write{t, want})
		outcome := Written
		if !existed {
			outcome = Created
		}
		res.Changes = append(res.Changes, Change{t.Path, outcome})
	}
	if len(writes) == 0 {
		return res, nil
	}
	for _, wr := range writes {
		dirs, err := mkdirs(filepath.Dir(wr.t.Path), wr.t.Perm)
		if err != nil {
			return res, err
		}
		rec.Dirs = appendNew(rec.Dirs, dirs...)
	}
	// The record first: a crash between the writes still leaves uninstall
	// able to restore what it finds.
	if err := saveRecord(in.DataDir, rec); err != nil {
		return res, err
	}
	for _, wr := range writes {
		perm := wr.t.Perm
		if m, ok := snap.modes[wr.t.Path]; ok {
			perm = m
		}
		if err := atomicfile.Write(wr.t.Path, wr.data, perm); err != nil {
			return res, permissionAdvice(wr.t.Path, err)
		}
	}
	return res, nil
}

// Uninstall takes Gatehouse's entries out of agent a's config for scope:
// a file still as install left it is restored byte for byte; one the
// person edited since loses only Gatehouse's entries.
func (in Installer) Uninstall(a Agent, scope Scope) (Result, error) {
	res := Result{Agent: a, Scope: scope}
	def := definitionOf(a)
	ts := def.targets(in.Env, scope)
	rec, err := loadRecord(in.DataDir, a, scope)
	if err != nil {
		return res, err
	}
	// A file as install left it needs no parsing to be restored, so only
	// the others must be valid.
	snap := snapshot{cur: files{}, modes: map[string]fs.FileMode{}}
	for _, t := range ts {
		b, err := os.ReadFile(t.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return res, &Refusal{Msg: fmt.Sprintf("cannot read %s (%v); nothing was changed", t.Path, errors.Unwrap(err))}
		}
		if fr := recFile(rec, t.Path); fr == nil || fr.Installed != sum(b) {
			if err := validate(t, b); err != nil {
				return res, err
			}
		}
		snap.cur[t.Path] = b
	}
	stripped, err := def.strip(in.Env, scope, snap.cur)
	if err != nil {
		return res, err
	}
	type op struct {
		path   string
		data   []byte
		mode   fs.FileMode
		remove bool
	}
	var ops []op
	for _, t := range ts {
		cur, exists := snap.cur[t.Path]
		fr := recFile(rec, t.Path)
		switch {
		case !exists:
			res.Changes = append(res.Changes, Change{t.Path, Unchanged})
		case fr != nil && fr.Installed == sum(cur) && !fr.Existed:
			ops = append(ops, op{path: t.Path, remove: true})
			res.Changes = append(res.Changes, Change{t.Path, Removed})
		case fr != nil && fr.Installed == sum(cur):
			ops = append(ops, op{path: t.Path, data: fr.Original, mode: fr.Mode})
			res.Changes = append(res.Changes, Change{t.Path, Restored})
		case !bytes.Equal(stripped[t.Path], cur):
			st, _ := os.Stat(t.Path)
			ops = append(ops, op{path: t.Path, data: stripped[t.Path], mode: st.Mode().Perm()})
			res.Changes = append(res.Changes, Change{t.Path, Stripped})
		default:
			res.Changes = append(res.Changes, Change{t.Path, Unchanged})
		}
	}
	if len(ops) == 0 && rec == nil {
		return res, ErrNotInstalled
	}
	for _, o := range ops {
		var err error
		if o.remove {
			err = os.Remove(o.path)
		} else {
			err = atomicfile.Write(o.path, o.data, o.mode)
		}
		if err != nil {
			return res, permissionAdvice(o.path, err)
		}
	}
	if rec != nil {
		// Directories install created go again if nothing else lives there.
		dirs := append([]string(nil), rec.Dirs...)
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			_ = os.Remove(d) // fails, as it should, when not empty
		}
		if err := os.Remove(recordPath(in.DataDir, a, scope)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("remove install record: %w", err)
		}
	}
	return res, nil
}

func recFile(r *record, path string) *fileRecord {
	if r == nil {
		return nil
	}
	return r.file(path)
}

// Status is whether agent a is wired for one scope.
type Status struct {
	Agent Agent    `json:"agent"`
	Scope Scope    `json:"scope"`
	Wired bool     `json:"wired"`
	Files []string `json:"files"`
	// Recorded: Gatehouse's own install wrote it (uninstall can restore).
	Recorded bool `json:"recorded"`
}

// Status reports agent a's wiring in scope by reading its config.
func (in Installer) Status(a Agent, scope Scope) Status {
	def := definitionOf(a)
	ts := def.targets(in.Env, scope)
	st := Status{Agent: a, Scope: scope}
	cur := files{}
	for _, t := range ts {
		st.Files = append(st.Files, t.Path)
		if b, err := os.ReadFile(t.Path); err == nil {
			cur[t.Path] = b
		}
	}
	st.Wired = def.wired(in.Env, scope, cur)
	rec, _ := loadRecord(in.DataDir, a, scope)
	st.Recorded = rec != nil
	return st
}

// mkdirs creates dir and its missing parents, returning those it made.
func mkdirs(dir string, filePerm fs.FileMode) ([]string, error) {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		made = append(made, d)
	}
	perm := fs.FileMode(0o700)
	if filePerm&0o044 != 0 {
		perm = 0o755 // a machine-wide file every user must reach
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return nil, permissionAdvice(dir, err)
	}
	return made, nil
}

func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, l := range list {
			found = found || l == a
		}
		if !found {
			list = append(list, a)
		}
	}
	return list
}

// permissionAdvice turns a permission error into one sentence.
func permissionAdvice(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &Refusal{Msg: fmt.Sprintf("no permission to write %s; a --system install needs root (run it with sudo)", path)}
	}
	return fmt.Errorf("write %s: %w", path, err)
}
