package call

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A `cd` in Claude Code's shell moves the agent's next command: its shell
// keeps its directory, and records it after each command that succeeds.
// Through Gatehouse the command's shell is the sandbox's, so the run says
// where that shell ended. Bash reads the file BASH_ENV names before it
// runs the command: that file sets an EXIT trap that writes the directory
// into the session's temporary directory, which the sandbox shares with
// the host, when the command succeeded, and unsets BASH_ENV so that the
// command's own shells do not read it. The command's text stays as it
// was (its syntax errors quote it, and line numbers count it), and a
// command that sets its own EXIT trap, or fails, reports nothing.

// endDirName names a call's report in the session's temporary directory
// (and, with endDirScript, the file BASH_ENV names).
const (
	endDirName   = ".gatehouse-cwd-"
	endDirScript = ".sh"
)

// maxEndDir bounds the report read back: a path, never more.
const maxEndDir = 4096

// reportingEndDir prepares a run of argv in env to report where its shell
// ends: the variable to add to env, and the host file the report lands
// in. Nothing when argv is not bash's, the session has no temporary
// directory, or env names a BASH_ENV of its own.
func reportingEndDir(argv, env []string, tmp, callID string) (add, report string) {
	if tmp == "" || len(argv) != 3 || argv[0] != "bash" || argv[1] != "-c" {
		return "", ""
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "BASH_ENV=") {
			return "", ""
		}
	}
	name := endDirName + callID
	// ${TMPDIR} is the sandbox's, expanded by bash: in BASH_ENV when it
	// starts, in the trap when it is set; $? and the directory at exit.
	script := "unset BASH_ENV\ntrap \"__gatehouse_s=\\$?; [ \\$__gatehouse_s = 0 ] && pwd -P 2>/dev/null >| \\\"${TMPDIR:-/tmp}/" + name + "\\\"\" EXIT\n"
	if err := os.WriteFile(filepath.Join(tmp, name+endDirScript), []byte(script), 0o600); err != nil {
		return "", ""
	}
	return "BASH_ENV=${TMPDIR:-/tmp}/" + name + endDirScript, filepath.Join(tmp, name)
}

// readEndDir reads and removes the report at file: the directory, if the
// shell moved from start to a clean absolute path. The command could
// write anything there; the transport checks what it names once the run's
// changes have landed (in a workspace, there, not through a link out).
func readEndDir(file, start string) string {
	defer os.Remove(file + endDirScript)
	defer os.Remove(file)
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEndDir+1))
	if err != nil || len(b) > maxEndDir {
		return ""
	}
	dir, ok := strings.CutSuffix(string(b), "\n")
	if !ok || dir == start || strings.ContainsAny(dir, "\n\x00") || !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return ""
	}
	return dir
}
