package wssecrets

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// The bounds on reading history: the versions of secret files in the
// newest historyCommits commits that touch one (on any ref), at most
// historyBytes of git's output, within historyTime. A repository with
// thousands of .env versions gets its recent ones; older values stay
// findable through git and are not redacted (the README says so).
const (
	historyCommits = 200
	historyBytes   = 8 << 20
	historyTime    = 3 * time.Second
)

// History returns, per secret path git's recent history holds (not
// exposed), the lines its versions added or removed, as one text to
// Parse. Outside a git work tree, or when git fails, it returns nothing:
// the worktree's files are still read.
func History(ctx context.Context, root string, expose protect.Exposure) map[string][]byte {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, historyTime)
	defer cancel()
	args := []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.quotePath=false",
		"log", "--all", "-n", itoa(historyCommits), "--format=", "-p", "--unified=0",
		"--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", "--"}
	c := exec.CommandContext(ctx, "git", append(args, protect.SecretPathspecs()...)...)
	c.Dir = root
	c.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat")
	out, err := c.StdoutPipe()
	if err != nil {
		return nil
	}
	if err := c.Start(); err != nil {
		return nil
	}
	files := readDiffs(io.LimitReader(out, historyBytes), expose)
	cancel() // stop git if the bound cut it short
	_ = c.Wait()
	return files
}

// readDiffs collects each secret file's changed lines from git's patch
// output.
func readDiffs(r io.Reader, expose protect.Exposure) map[string][]byte {
	files := map[string][]byte{}
	var cur string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Bytes()
		switch {
		case bytes.HasPrefix(l, []byte("diff --git ")):
			cur = ""
			if i := bytes.LastIndex(l, []byte(" b/")); i >= 0 {
				p := string(l[i+3:])
				if protect.IsSecret(p) && !expose.Exposes(p) {
					cur = p
				}
			}
		case cur == "" || bytes.HasPrefix(l, []byte("+++ ")) || bytes.HasPrefix(l, []byte("--- ")):
		case len(l) > 0 && (l[0] == '+' || l[0] == '-'):
			files[cur] = append(append(files[cur], l[1:]...), '\n')
		}
	}
	return files
}

func itoa(n int) string { return strconv.Itoa(n) }
