package protect_test

import (
	"path"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect/protecttest"
)

// Every secret the list names is left out by one of the globs, matched
// as ripgrep matches a glob without a slash (the name, at any depth) or
// one starting **/ (the path's tail).
func TestSecretSearchGlobs(t *testing.T) {
	globs := protect.SecretSearchGlobs()
	leftOut := func(rel string) bool {
		parts := strings.Split(rel, "/")
		for _, g := range globs {
			g = strings.ReplaceAll(g, "[!", "[^") // path.Match's negation
			if tail, ok := strings.CutPrefix(g, "**/"); ok {
				n := strings.Count(tail, "/") + 1
				if len(parts) >= n {
					if m, _ := path.Match(tail, strings.Join(parts[len(parts)-n:], "/")); m {
						return true
					}
				}
				continue
			}
			for _, p := range parts {
				if m, _ := path.Match(g, p); m {
					return true
				}
			}
		}
		return false
	}
	for _, p := range append([]string{".env~", "app/.env-old", ".env:bak", "k8s/.kube/config", "home/.aws/credentials", "id_ed25519", ".ENV", "certs/Server.PEM", "ID_RSA"}, protecttest.SecretExamples...) {
		if !protect.IsSecret(p) {
			t.Fatalf("%s is not a secret: the example is wrong", p)
		}
		if !leftOut(p) {
			t.Errorf("%s would be searched", p)
		}
	}
	for _, p := range []string{"main.go", ".envrc", "src/env.ts", "README.md"} {
		if leftOut(p) {
			t.Errorf("%s would be left out", p)
		}
	}
}
