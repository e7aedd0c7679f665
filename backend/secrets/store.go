package secrets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Config is the [[secret]] part of Gatehouse's configuration.
type Config struct {
	Secrets []Secret `toml:"secret"`
}

// Secret is one configured credential.
type Secret struct {
	// Name is the environment variable the command receives, and the label
	// in redactions.
	Name string `toml:"name"`
	// Env reads the value from this variable of Gatehouse's own environment;
	// when neither Env nor File is set, Name is used.
	Env string `toml:"env"`
	// File reads the value from this file (absolute or ~/…); one trailing
	// newline is dropped.
	File string `toml:"file"`
	// Binaries are the absolute paths of the programs that receive it.
	Binaries []string `toml:"binaries"`
}

// Value is a named secret value, the Redactor's input.
type Value struct {
	Name  string
	Value string
}

// Store holds resolved secrets. It never prints their values.
type Store struct {
	entries []entry
}

type entry struct {
	name     string
	value    string
	binaries map[string]bool
}

// String keeps values out of accidental %v formatting.
func (s *Store) String() string { return fmt.Sprintf("secrets.Store(%d secrets)", len(s.entries)) }

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// Open resolves each configured secret. lookupEnv is usually os.LookupEnv.
// Secrets that cannot be resolved are left out and reported together in the
// error; the Store still holds every secret that did resolve, so one missing
// token does not disable the others.
func Open(cfg Config, lookupEnv func(string) (string, bool)) (*Store, error) {
	s := &Store{}
	var errs []error
	seen := map[string]bool{}
	for _, sec := range cfg.Secrets {
		e, err := resolve(sec, lookupEnv)
		if err == nil && seen[e.name] {
			err = fmt.Errorf("secret %s is configured twice; keep one", e.name)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		seen[e.name] = true
		s.entries = append(s.entries, e)
	}
	return s, errors.Join(errs...)
}

func resolve(sec Secret, lookupEnv func(string) (string, bool)) (entry, error) {
	e := entry{name: sec.Name, binaries: map[string]bool{}}
	if !envName().MatchString(sec.Name) {
		return e, fmt.Errorf("secret name %q must be an environment variable name such as GH_TOKEN", sec.Name)
	}
	if len(sec.Binaries) == 0 {
		return e, fmt.Errorf("secret %s lists no binaries; add the absolute paths of the programs that need it", sec.Name)
	}
	for _, b := range sec.Binaries {
		if !filepath.IsAbs(b) {
			return e, fmt.Errorf("secret %s: binary %q must be an absolute path such as /usr/bin/gh", sec.Name, b)
		}
		e.binaries[filepath.Clean(b)] = true
	}
	switch {
	case sec.Env != "" && sec.File != "":
		return e, fmt.Errorf("secret %s sets both env and file; keep one", sec.Name)
	case sec.File != "":
		p := sec.File
		if strings.HasPrefix(p, "~/") {
			home, ok := lookupEnv("HOME")
			if !ok || home == "" {
				return e, fmt.Errorf("secret %s: cannot expand ~ without HOME; use an absolute file path", sec.Name)
			}
			p = filepath.Join(home, p[2:])
		}
		if !filepath.IsAbs(p) {
			return e, fmt.Errorf("secret %s: file %q must be an absolute path", sec.Name, sec.File)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return e, fmt.Errorf("secret %s: cannot read its file: %w", sec.Name, err)
		}
		e.value = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	default:
		name := sec.Env
		if name == "" {
			name = sec.Name
		}
		v, ok := lookupEnv(name)
		if !ok {
			return e, fmt.Errorf("secret %s: environment variable %s is not set; set it before starting Gatehouse or remove the secret", sec.Name, name)
		}
		e.value = v
	}
	if e.value == "" {
		return e, fmt.Errorf("secret %s is empty; give it a value or remove it", sec.Name)
	}
	return e, nil
}

// EnvFor returns the secrets to add to the environment of binary (an
// absolute path, as resolved for policy). The map is the caller's to keep.
func (s *Store) EnvFor(binary string) map[string]string {
	binary = filepath.Clean(binary)
	m := map[string]string{}
	for _, e := range s.entries {
		if e.binaries[binary] {
			m[e.name] = e.value
		}
	}
	return m
}

// Values returns every configured secret, for building a Redactor.
func (s *Store) Values() []Value {
	v := make([]Value, 0, len(s.entries))
	for _, e := range s.entries {
		v = append(v, Value{Name: e.name, Value: e.value})
	}
	return v
}
