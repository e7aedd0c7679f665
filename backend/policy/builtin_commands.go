package policy

import "strings"

// defaultTrustedBinDirs are where the harmless-command allowlist looks for
// its programs. A binary elsewhere (./git, a workspace's bin/) is not the
// harmless program its name suggests.
var defaultTrustedBinDirs = []string{
	"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
	"/usr/local/go/bin", "/usr/lib/go/bin", "/opt/homebrew/bin", "/snap/bin",
}

// harmless describes one allowlisted program. The sandbox bounds what these
// can do, so they run without asking; the flag checks keep out the options
// that make them run other programs or write files.
type harmless struct {
	readOnly    bool            // also runs in plan mode
	subcommands map[string]bool // when set, args[0] must be one of these
	badExact    []string        // arguments that disqualify, compared exactly
	badPrefix   []string        // arguments that disqualify, compared by prefix
	maxOperands int             // when set, more non-flag arguments disqualify (an output file)
}

func (h *harmless) accepts(args []string) bool {
	if h.subcommands != nil && (len(args) == 0 || !h.subcommands[args[0]]) {
		return false
	}
	if h.maxOperands > 0 {
		n := 0
		for _, a := range args {
			if !strings.HasPrefix(a, "-") || a == "-" {
				n++
			}
		}
		if n > h.maxOperands {
			return false
		}
	}
	for _, a := range args {
		for _, b := range h.badExact {
			if a == b {
				return false
			}
		}
		for _, b := range h.badPrefix {
			if strings.HasPrefix(a, b) {
				return false
			}
		}
	}
	return true
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var plainReader = harmless{readOnly: true}

var harmlessCommands = map[string]*harmless{
	"ls": &plainReader, "cat": &plainReader, "head": &plainReader, "tail": &plainReader,
	"wc": &plainReader, "pwd": &plainReader, "echo": &plainReader, "true": &plainReader,
	"false": &plainReader, "printf": &plainReader, "date": &plainReader, "whoami": &plainReader,
	"uname": &plainReader, "basename": &plainReader, "dirname": &plainReader,
	"realpath": &plainReader, "readlink": &plainReader, "stat": &plainReader,
	"file": {readOnly: true, badExact: []string{"-C", "--compile"}},
	"du":   &plainReader, "df": &plainReader, "diff": &plainReader,
	// tree -o and file -C write files; uniq writes its second operand.
	"tree": {readOnly: true, badPrefix: []string{"-o", "--output"}},
	"cmp":  &plainReader, "nl": &plainReader, "cut": &plainReader, "tr": &plainReader,
	"uniq": {readOnly: true, maxOperands: 1}, "comm": &plainReader, "which": &plainReader,
	"sha256sum": &plainReader, "sha1sum": &plainReader, "md5sum": &plainReader,
	"grep": &plainReader, "egrep": &plainReader, "fgrep": &plainReader,
	"sort": {readOnly: true, badExact: []string{"-o"}, badPrefix: []string{"--output", "--compress-program", "-o"}},
	"rg":   {readOnly: true, badPrefix: []string{"--pre"}},
	"find": {readOnly: true, badExact: []string{"-exec", "-execdir", "-ok", "-okdir", "-delete",
		"-fprint", "-fprint0", "-fprintf", "-fls"}},
	"git": {readOnly: true,
		subcommands: set("status", "diff", "log", "show", "blame", "ls-files", "rev-parse", "shortlog"),
		badPrefix:   []string{"--output", "--ext-diff", "--textconv"}},
	"gofmt": {readOnly: true, badExact: []string{"-w"}},
	"go": {subcommands: set("test", "build", "vet", "list", "version", "env"),
		badExact:  []string{"-exec", "-toolexec", "-w", "-u"},
		badPrefix: []string{"-exec=", "-toolexec="}},
	"cargo": {subcommands: set("test", "build", "check")},
}

// interpreters run whatever code they are given, so allowing one is allowing
// anything the sandbox permits.
var interpreters = set(
	"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "pwsh", "powershell",
	"node", "nodejs", "deno", "bun", "bunx", "npx", "pnpx", "tsx", "ts-node",
	"irb", "tclsh", "wish", "expect", "rscript", "r", "julia", "osascript",
	"awk", "gawk", "mawk", "nawk", "java", "jshell", "groovy", "scala", "escript", "elixir",
	"racket", "guile", "sbcl", "ghci", "runghc", "vim", "nvim", "vi", "emacs",
	"make", "gmake", "bmake", "cmake", "ninja", "just", "rake", "uv", "uvx", "pipx", "poetry",
	// wrappers that run another program named in their arguments
	"env", "xargs", "sudo", "doas", "su", "nohup", "nice", "ionice", "timeout", "stdbuf", "time",
	"watch", "chroot", "setsid", "flock", "taskset", "unshare", "nsenter", "strace", "ltrace",
	"gdb", "busybox", "script", "parallel", "entr", "ssh", "runuser",
)

// interpreterFamilies match versioned names such as python3.12 or ruby3.2.
var interpreterFamilies = []string{"python", "pypy", "perl", "ruby", "php", "lua"}

// packageRunners are interpreters only for the subcommands that run scripts
// (npm ls is harmless, npm run and npm install run package scripts).
var packageRunners = map[string]map[string]bool{
	"npm":  set("exec", "x", "run", "run-script", "rum", "urn", "test", "t", "tst", "start", "restart", "stop", "install", "i", "ci", "add", "init", "create", "rebuild", "explore"),
	"pnpm": set("exec", "dlx", "run", "test", "t", "start", "install", "i", "add", "create", "rebuild"),
	"yarn": set("exec", "dlx", "run", "test", "start", "install", "add", "create", ""),
}

// runsCode is what an interpreter risk means, said once: the card's
// "Runs code" line says it for every such risk, a decision's reason adds
// it to the detail.
const runsCode = "allowing it grants arbitrary code execution inside the sandbox"

// interpreterRisk reports whether base with args runs arbitrary code, and
// what a rule must contain to name it.
func interpreterRisk(base string, args []string) (Risk, bool) {
	lb := strings.ToLower(base)
	named := func(detail string) (Risk, bool) {
		return Risk{Kind: RiskInterpreter, field: fieldBinary, names: []string{base},
			Detail: detail, consequence: runsCode}, true
	}
	if interpreters[lb] {
		return named(base + " is an interpreter")
	}
	for _, f := range interpreterFamilies {
		if strings.HasPrefix(lb, f) && isVersionSuffix(lb[len(f):]) {
			return named(base + " is an interpreter")
		}
	}
	if subs, ok := packageRunners[lb]; ok {
		sub := ""
		if len(args) > 0 {
			sub = args[0]
		}
		if subs[sub] {
			return named(base + " " + sub + " runs package scripts")
		}
	}
	switch lb {
	case "git":
		// git -c key=value can point core.pager, aliases or hooks at any program.
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				break
			}
			if a == "-c" || strings.HasPrefix(a, "--config-env") || strings.HasPrefix(a, "--exec-path") {
				return Risk{Kind: RiskInterpreter, field: fieldText, names: []string{a},
					Detail: "git " + a + " can make git run any program", consequence: runsCode}, true
			}
		}
	case "find":
		for _, a := range args {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir":
				return Risk{Kind: RiskInterpreter, field: fieldText, names: []string{a},
					Detail: "find " + a + " runs other programs", consequence: runsCode}, true
			}
		}
	case "go":
		if len(args) > 0 && (args[0] == "run" || args[0] == "generate" || args[0] == "tool") {
			return named("go " + args[0] + " runs programs it builds")
		}
	}
	return Risk{}, false
}

// isVersionSuffix accepts "", "3", "3.12", "-3.12", "5.36".
func isVersionSuffix(s string) bool {
	s = strings.TrimPrefix(s, "-")
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}
