package policy

import (
	"fmt"
	"path"
	"strings"
)

// Rule is one [[rule]] table of a policy file, or a session grant.
//
// A rule matches a call when every selector it sets matches:
//   - tool: the tool name; when empty it is implied by the other selectors
//     (binary/args imply run_command, domains imply fetch_url, paths alone
//     match the file tools and run_command);
//   - binary: a path pattern for the resolved absolute program path;
//   - args: a prefix of the arguments after the program name;
//   - paths: path patterns (** spans directories, ~/ is the home directory).
//     An allow rule needs every path of a file call to match; ask and deny
//     rules need one. For run_command an allow rule matches the working
//     directory; ask and deny rules also match path-like arguments;
//   - domains: example.com matches that host exactly, *.example.com any
//     subdomain (not example.com itself);
//   - ports: with tool = "network" only (see network.go).
type Rule struct {
	ID      string
	Action  Verdict
	Tool    string
	Binary  string
	Args    []string
	Paths   []string
	Domains []string
	Ports   []int
	Reason  string

	c      *compiledRule
	source Source
	file   string
	line   int
}

type compiledRule struct {
	cmdOnly, fetchOnly bool
	binary             *glob
	binaryNames        bool // the binary pattern's basename is literal enough to name a program
	paths              []glob
	domains            []domainPattern
	text               []string // lowercased args, paths, domains: for naming risks
	specificity        int
}

type domainPattern struct {
	host     string // lowercase; for a wildcard the suffix without "*."
	wildcard bool
}

// compile validates the rule and prepares it for matching. base resolves
// relative path patterns (workspace files only).
func (r *Rule) compile(base string) error {
	if r.Tool == ToolNetwork || len(r.Ports) > 0 {
		return r.compileNetwork()
	}
	c := &compiledRule{}
	if r.Tool != "" && classOf(r.Tool) == classUnknown {
		return fmt.Errorf("tool %q is not one of run_command, read_file, write_file, edit_file, list_dir, search_files, fetch_url, ask_human, network", r.Tool)
	}
	if r.Action < Allow || r.Action > Deny {
		return fmt.Errorf("action must be allow, ask or deny")
	}
	if r.Tool == "" && r.Binary == "" && len(r.Args) == 0 && len(r.Paths) == 0 && len(r.Domains) == 0 {
		return fmt.Errorf("a rule must set at least one of tool, binary, args, paths or domains")
	}
	if r.Binary != "" || len(r.Args) > 0 {
		if r.Tool != "" && r.Tool != ToolRunCommand {
			return fmt.Errorf("binary and args only apply to run_command, not %s", r.Tool)
		}
		c.cmdOnly = true
	}
	if len(r.Domains) > 0 {
		if (r.Tool != "" && r.Tool != ToolFetchURL) || c.cmdOnly || len(r.Paths) > 0 {
			return fmt.Errorf("domains only apply to fetch_url and cannot be combined with binary, args or paths")
		}
		c.fetchOnly = true
	}
	if r.Tool == ToolFetchURL && len(r.Paths) > 0 {
		return fmt.Errorf("paths do not apply to fetch_url; use domains")
	}
	if r.Binary != "" {
		if !strings.HasPrefix(r.Binary, "/") {
			return fmt.Errorf("binary %q must be an absolute path such as /usr/bin/git", r.Binary)
		}
		g, err := compileGlob(r.Binary, "")
		if err != nil {
			return err
		}
		c.binary = &g
		c.binaryNames = len(literalPrefix(path.Base(r.Binary))) >= 2
		c.specificity += 1000
		if g.literal == g.raw {
			c.specificity += 500
		}
	}
	for _, a := range r.Args {
		c.text = append(c.text, strings.ToLower(a))
	}
	c.specificity += 50 * len(r.Args)
	longest := 0
	for _, p := range r.Paths {
		g, err := compileGlob(p, base)
		if err != nil {
			return err
		}
		c.paths = append(c.paths, g)
		c.text = append(c.text, strings.ToLower(p))
		longest = max(longest, len(g.literal))
	}
	c.specificity += longest
	dl, err := c.addDomains(r.Domains)
	if err != nil {
		return err
	}
	longest = max(longest, dl)
	if len(r.Domains) > 0 {
		c.specificity += longest
	}
	if r.Tool != "" {
		c.specificity++
	}
	r.c = c
	return nil
}

// addDomains compiles domain patterns into c and returns the
// specificity of the most specific one: an exact host outranks any
// wildcard, and a longer host a shorter one.
func (c *compiledRule) addDomains(domains []string) (int, error) {
	longest := 0
	for _, d := range domains {
		dp, err := parseDomainPattern(d)
		if err != nil {
			return 0, err
		}
		c.domains = append(c.domains, dp)
		c.text = append(c.text, dp.host)
		if dp.wildcard {
			longest = max(longest, 100+len(dp.host))
		} else {
			longest = max(longest, 200+len(dp.host))
		}
	}
	return longest, nil
}

func parseDomainPattern(d string) (domainPattern, error) {
	s := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
	dp := domainPattern{host: s}
	if strings.HasPrefix(s, "*.") {
		dp.wildcard, dp.host = true, s[2:]
	}
	if dp.host == "" || strings.ContainsAny(dp.host, "*/:@?# ") {
		return dp, fmt.Errorf("domain %q must be a host name such as example.com or *.example.com", d)
	}
	return dp, nil
}

func (dp *domainPattern) match(host string) bool {
	if !dp.wildcard {
		return host == dp.host
	}
	return len(host) > len(dp.host)+1 && strings.HasSuffix(host, dp.host) && host[len(host)-len(dp.host)-1] == '.'
}

// matches reports whether the compiled rule applies to the analysed call.
func (r *Rule) matches(a *analysis) bool {
	c := r.c
	if r.Tool != "" && r.Tool != a.call.Tool {
		return false
	}
	if c.cmdOnly && a.class != classCommand {
		return false
	}
	if c.fetchOnly && a.class != classFetch {
		return false
	}
	if c.binary != nil && !c.binary.match(a.call.Binary, a.sess.Home) {
		return false
	}
	if len(r.Args) > 0 {
		if len(a.args) < len(r.Args) {
			return false
		}
		for i, want := range r.Args {
			if a.args[i] != want {
				return false
			}
		}
	}
	if len(c.paths) > 0 && !r.matchPaths(a) {
		return false
	}
	if len(c.domains) > 0 {
		ok := false
		for i := range c.domains {
			if c.domains[i].match(a.host) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (r *Rule) matchPaths(a *analysis) bool {
	anyMatch := func(p string) bool {
		for i := range r.c.paths {
			if r.c.paths[i].match(p, a.sess.Home) {
				return true
			}
		}
		return false
	}
	switch a.class {
	case classCommand:
		if anyMatch(a.call.Cwd) {
			return true
		}
		if r.Action == Allow {
			return false
		}
		for _, p := range a.pathArgs {
			if anyMatch(p) {
				return true
			}
		}
		return false
	case classRead, classWrite:
		if len(a.call.Paths) == 0 {
			return false
		}
		for _, p := range a.call.Paths {
			m := anyMatch(p)
			if r.Action == Allow && !m {
				return false
			}
			if r.Action != Allow && m {
				return true
			}
		}
		return r.Action == Allow
	}
	return false
}

// names reports whether the rule mentions a risk explicitly, which is what it
// takes to loosen a builtin risk class.
func (r *Rule) names(k Risk) bool {
	if k.field == fieldBinary {
		return r.c.binary != nil && r.c.binaryNames
	}
	for _, n := range k.names {
		n = strings.ToLower(n)
		found := false
		for _, t := range r.c.text {
			if strings.Contains(t, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ref describes the rule for a Decision.
func (r *Rule) ref() RuleRef {
	src := r.source
	if src == "" {
		src = SourceGrant
	}
	return RuleRef{ID: r.ID, Source: src, File: r.file, Line: r.line}
}
