package proof

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// The row on files that steer the next agent session or that the
// person's tools run by themselves (protect.Steering): instruction files,
// dev containers, version managers' and editors' project config.

// steeringPlanted are the steering files the test workspace holds: one
// instruction file, one directory kind, one version manager's config.
var steeringPlanted = map[string]string{
	"CLAUDE.md":                        "# the person's instructions\n",
	".devcontainer/devcontainer.json":  "{}\n",
	"mise.toml":                        "[tools]\n",
	".github/prompts/review.prompt.md": "review\n",
}

// checkSteering changes the planted ones and creates every other name
// of every kind at the workspace root, each the usual ways.
func checkSteering(ctx context.Context, e *env) (Outcome, string) {
	var script strings.Builder
	script.WriteString(unmountScript)
	for p := range steeringPlanted {
		top, _, _ := strings.Cut(p, "/")
		fmt.Fprintf(&script, "echo evil >> %q; echo evil > t; mv -f t %q; rm -rf %q; ", p, p, top)
	}
	var create []string
	for _, n := range protect.SteeringNames {
		full := filepath.Join(e.ws, filepath.FromSlash(n))
		if _, err := os.Lstat(full); err == nil {
			continue
		}
		if _, err := os.Stat(filepath.Dir(full)); err != nil {
			continue // protected only where its parent is
		}
		create = append(create, n)
		fmt.Fprintf(&script, "echo evil > %q; mkdir %q; echo evil > t; mv -f t %q; ", n, n, n)
	}
	script.WriteString("rm -f t; exit 0")
	r, err := e.run(ctx, []string{"sh", "-c", script.String()}, nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if p := e.unchanged(steeringPlanted); p != "" {
		return Fail, "the sandbox changed or moved " + p
	}
	if p := e.absent(create...); p != "" {
		return Fail, "the sandbox created " + p
	}
	return Pass, fmt.Sprintf("%d changed and %d created refused: %s", len(steeringPlanted), len(create), firstLine(r.Stderr))
}
