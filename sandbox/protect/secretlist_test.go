package protect_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect/protecttest"
)

func TestIsSecret(t *testing.T) {
	// Copies of a .env that people and editors leave beside it.
	for _, p := range []string{".env~", ".env.bak", ".env-old", "app/.env_prod", ".env:2024", ".env,old", ".env local", ".ENV.Local", ".env.local~"} {
		if !protect.IsSecret(p) {
			t.Errorf("%s is not on the secret list", p)
		}
	}
	for _, p := range protecttest.SecretExamples {
		if !protect.IsSecret(p) {
			t.Errorf("%s is not on the secret list", p)
		}
	}
	for _, p := range []string{
		".env.example", "app/.env.sample", ".env.template", ".env-example", ".env_sample", ".envrc", ".env1x", "env.go", "id_ed25519.pub", "keys.go",
		"docker/config.json", "kube/config", "server.crt", "README.md", ".environment", "main.pem.go",
	} {
		if protect.IsSecret(p) {
			t.Errorf("%s is on the secret list, and should not be", p)
		}
	}
}
