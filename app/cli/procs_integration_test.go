//go:build integration

package cli_test

import (
	"encoding/json"
	"os/exec"
	"strings"
)

// pgrep lists processes whose command line contains pattern.
func pgrep(pattern string) (string, error) {
	out, err := exec.Command("pgrep", "-af", pattern).Output()
	lines := []string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.Contains(l, "pgrep") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n"), err
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
