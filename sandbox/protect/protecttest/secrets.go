package protecttest

// SecretExamples are workspace paths on the sandbox's secret list.
// backend/policy's test checks that reading each asks, and
// sandbox/protect's that each is on the list, so the two stay together.
var SecretExamples = []string{
	".env", "app/.env.local", ".env.production", "id_ed25519", "deploy/id_rsa_ci", "certs/server.pem", "tls.key",
	"bundle.p12", ".npmrc", ".pypirc", ".netrc", ".git-credentials", ".aws/credentials", "ops/.aws/config",
	".docker/config.json", ".kube/config", "application_default_credentials.json", "credentials.json", ".ssh/config",
}
