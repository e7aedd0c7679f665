package policy

import (
	"path"
	"strings"
)

// ruleField says where a rule must mention a risk's names to count as naming
// it explicitly.
type ruleField int

const (
	// fieldText: each name appears in the rule's args, paths or domains.
	fieldText ruleField = iota
	// fieldBinary: the last segment of the rule's binary pattern is literal
	// enough to name the program (not just "*").
	fieldBinary
)

// sensitiveKeywords in an argument or URL suggest a credential is in play.
var sensitiveKeywords = []string{"password", "passwd", "token", "secret"}

// metadataHosts serve cloud instance credentials.
var metadataHosts = []string{
	"169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200",
	"metadata.google.internal", "metadata.goog", "metadata.azure.com",
}

// sensitiveDirs are path components under which credentials live.
var sensitiveDirs = set(".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".password-store")

// sensitiveFiles are exact basenames that hold credentials.
var sensitiveFiles = set(".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", "credentials", "credentials.json",
	"application_default_credentials.json", "credentials.tfrc.json", ".boto", ".s3cfg", ".dockercfg", "credentials.db", "access_tokens.db")

// Credential reports whether the absolute path p may hold credentials
// (~/.ssh, a .netrc, cloud credentials): never proposed to a sandbox.
func Credential(p string) bool {
	_, ok := sensitivePath(p)
	return ok
}

// sensitivePath reports whether the absolute path p holds credentials.
func sensitivePath(p string) (Risk, bool) {
	rest := p
	for rest != "" {
		var comp string
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			comp, rest = rest, ""
		}
		if comp == "" {
			continue
		}
		if name, ok := sensitiveComponent(comp, rest == ""); ok {
			return Risk{Kind: RiskSensitive, field: fieldText, names: []string{name},
				Detail: p + " may hold credentials"}, true
		}
	}
	return Risk{}, false
}

// sensitiveComponent checks one path component; last marks the basename.
// It returns the literal a rule must contain to name it.
func sensitiveComponent(comp string, last bool) (string, bool) {
	lc := strings.ToLower(comp)
	switch {
	case strings.HasPrefix(lc, ".env"):
		return ".env", true
	case sensitiveDirs[lc]:
		return lc, true
	case strings.HasPrefix(lc, "id_rsa"), strings.HasPrefix(lc, "id_dsa"),
		strings.HasPrefix(lc, "id_ecdsa"), strings.HasPrefix(lc, "id_ed25519"):
		return comp, true
	}
	if !last {
		return "", false
	}
	if sensitiveFiles[lc] {
		return lc, true
	}
	switch path.Ext(lc) {
	case ".pem", ".key", ".p12", ".pfx", ".keystore", ".jks":
		return comp, true
	}
	// Word match on the basename, so secrets.yaml and api_token.txt ask but
	// tokenizer.go does not.
	for _, w := range words(lc) {
		for _, k := range sensitiveKeywords {
			if w == k || w == k+"s" {
				return k, true
			}
		}
	}
	return "", false
}

// words splits a basename on everything that is not a lowercase letter or digit.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
}

// sensitiveText reports a credential keyword or metadata host inside free text
// such as a command argument or a URL.
func sensitiveText(s string) (Risk, bool) {
	ls := strings.ToLower(s)
	for _, k := range sensitiveKeywords {
		if strings.Contains(ls, k) {
			return Risk{Kind: RiskSensitive, field: fieldText, names: []string{k},
				Detail: "an argument mentions " + k + ", so it may carry a credential"}, true
		}
	}
	for _, h := range metadataHosts {
		if strings.Contains(ls, h) {
			return Risk{Kind: RiskSensitive, field: fieldText, names: []string{h},
				Detail: h + " is a cloud metadata service that hands out credentials"}, true
		}
	}
	return Risk{}, false
}

// isMetadataHost reports whether a URL host is a metadata service.
func isMetadataHost(host string) bool {
	for _, h := range metadataHosts {
		if host == h {
			return true
		}
	}
	return false
}

// protectedPath reports files that configure code execution; writing them
// asks even where edits are otherwise allowed.
func protectedPath(p string) (Risk, bool) {
	base := path.Base(p)
	mk := func(name, why string) (Risk, bool) {
		return Risk{Kind: RiskProtected, field: fieldText, names: []string{name},
			Detail: p + " " + why}, true
	}
	for d := p; d != "/" && d != "."; d = path.Dir(d) {
		switch path.Base(d) {
		case "hooks":
			if path.Base(path.Dir(d)) == ".git" {
				return mk("hooks", "is a git hook, which runs on git commands")
			}
		case ".gatehouse":
			return mk(".gatehouse", "is Gatehouse configuration")
		case ".claude", ".cursor", ".codex", ".gemini", ".vscode", ".idea":
			return mk(path.Base(d), "is agent or editor configuration, which can run commands")
		}
	}
	if name, ok := gitProtected(p); ok {
		return mk(name, "is read by git as its hooks or configuration, which run programs")
	}
	if name, ok := hookRunnerProtected(p); ok {
		return mk(name, "is a git hook runner's configuration, which runs commands at each commit")
	}
	if r, ok := steeringPath(p); ok {
		return r, true
	}
	switch {
	case base == ".mcp.json":
		return mk(base, "configures agent tools")
	case strings.HasPrefix(base, ".gatehouse"):
		return mk(base, "is Gatehouse configuration")
	case shellRC[base]:
		return mk(base, "is a shell startup file")
	case base == "config.fish" || base == ".envrc":
		return mk(base, "runs when a shell starts or enters the directory")
	}
	return Risk{}, false
}

var shellRC = set(".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc")

// destructiveRisk finds the patterns that discard work.
func destructiveRisk(base string, args []string, cwd, home string, workspaces []string) (Risk, bool) {
	switch base {
	case "git":
		return gitDestructive(args)
	case "rm":
		return rmDestructive(args, cwd, home, workspaces)
	}
	return Risk{}, false
}

func gitDestructive(args []string) (Risk, bool) {
	// Skip global options to find the subcommand.
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" || args[i] == "--git-dir" || args[i] == "--work-tree" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return Risk{}, false
	}
	sub, rest := args[i], args[i+1:]
	mk := func(flag, what string) (Risk, bool) {
		return Risk{Kind: RiskDestructive, field: fieldText, names: []string{sub, flag},
			Detail: "git " + sub + " " + flag + " " + what}, true
	}
	switch sub {
	case "push":
		for _, a := range rest {
			switch {
			case a == "--force", a == "--mirror", a == "--delete", a == "--prune",
				strings.HasPrefix(a, "--force-with-lease"), a == "--force-if-includes":
				return mk(a, "can overwrite or delete remote history")
			case shortFlagHas(a, 'f') || shortFlagHas(a, 'd'):
				return mk(a, "can overwrite or delete remote history")
			case strings.HasPrefix(a, "+"), strings.HasPrefix(a, ":") && len(a) > 1:
				return mk(a, "can overwrite or delete remote history")
			}
		}
	case "reset":
		for _, a := range rest {
			if a == "--hard" || a == "--merge" || a == "--keep" {
				return mk(a, "discards uncommitted work")
			}
		}
	case "clean":
		for _, a := range rest {
			if a == "--force" || shortFlagHas(a, 'f') {
				return mk(a, "deletes untracked files")
			}
		}
	}
	return Risk{}, false
}

// leavesWorkspace: a destructive pattern whose effect lands outside the
// workspace (remote history), where no checkpoint can undo it.
func leavesWorkspace(k Risk) bool {
	return len(k.names) > 0 && k.names[0] == "push"
}

// shortFlagHas reports whether a is a bundle of short flags such as -fdx
// containing c.
func shortFlagHas(a string, c byte) bool {
	if len(a) < 2 || a[0] != '-' || a[1] == '-' {
		return false
	}
	return strings.IndexByte(a[1:], c) >= 0
}

func rmDestructive(args []string, cwd, home string, workspaces []string) (Risk, bool) {
	recursive := ""
	var targets []string
	opts := true
	for _, a := range args {
		switch {
		case opts && a == "--":
			opts = false
		case opts && (a == "--recursive"):
			recursive = a
		case opts && strings.HasPrefix(a, "-") && len(a) > 1 && a[1] != '-':
			if strings.ContainsAny(a[1:], "rR") {
				recursive = a
			}
		case opts && strings.HasPrefix(a, "--"):
		default:
			targets = append(targets, a)
		}
	}
	if recursive == "" {
		return Risk{}, false
	}
	for _, t := range targets {
		if rootish(t, cwd, home, workspaces) {
			return Risk{Kind: RiskDestructive, field: fieldText, names: []string{recursive},
				Detail: "rm " + recursive + " " + t + " deletes a whole workspace, home or system directory"}, true
		}
	}
	return Risk{}, false
}

// rootish reports whether an rm target is /, home, a workspace root, an
// ancestor of one, or everything inside one of those (a literal * — there is
// no shell to expand it, but a wrapper might).
func rootish(t, cwd, home string, workspaces []string) bool {
	switch t {
	case "/", "~", "~/", "$HOME", "${HOME}", "*", ".*", "/*", "~/*":
		return true
	}
	if strings.HasSuffix(t, "/*") || t == "*" {
		t = strings.TrimSuffix(t, "*")
	}
	p := resolveArg(t, cwd, home)
	if p == "" {
		return false
	}
	if p == "/" || (home != "" && within(home, p)) {
		return true
	}
	for _, w := range workspaces {
		if within(w, p) {
			return true
		}
	}
	return false
}

// resolveArg turns a path-looking argument into an absolute path, or "".
func resolveArg(a, cwd, home string) string {
	switch {
	case a == "~" || strings.HasPrefix(a, "~/"):
		if home == "" {
			return ""
		}
		return path.Join(home, a[1:])
	case strings.HasPrefix(a, "$HOME/"), strings.HasPrefix(a, "${HOME}/"):
		if home == "" {
			return ""
		}
		return path.Join(home, a[strings.IndexByte(a, '/'):])
	case strings.HasPrefix(a, "/"):
		return path.Clean(a)
	case cwd != "":
		return path.Join(cwd, a)
	}
	return ""
}

// looksLikePath picks the arguments worth resolving: anything with a slash,
// dot paths and ~. A --flag=value yields its value.
func looksLikePath(a string) (string, bool) {
	if strings.HasPrefix(a, "-") {
		i := strings.IndexByte(a, '=')
		if i < 0 {
			return "", false
		}
		a = a[i+1:]
	}
	if a == "." || a == ".." || a == "~" || strings.HasPrefix(a, "~/") || strings.Contains(a, "/") {
		if strings.Contains(a, "://") {
			return "", false
		}
		return a, true
	}
	return "", false
}
