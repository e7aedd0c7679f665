package call

import "testing"

func TestCredentialNote(t *testing.T) {
	cases := []struct {
		name, out string
		note      bool
	}{
		{"git push over https", "fatal: could not read Username for 'https://git.example.test': No such device or address", true},
		{"git with prompts off", "fatal: could not read Username for 'https://git.example.test': terminal prompts disabled", true},
		{"a rejected login", "remote: Invalid username or password.\nfatal: Authentication failed for 'https://git.example.test/me/app.git/'", true},
		{"gh", "To get started with GitHub CLI, please run:  gh auth login", true},
		{"npm publish", "npm error code E401\nnpm error 401 Unauthorized - PUT https://pkgs.example.test/app", true},
		{"aws", "Unable to locate credentials. You can configure credentials by running \"aws configure\".", true},
		{"a test's own log line", "--- PASS: TestLogin: authentication failed for user bob, as it should", false},
		{"a push that worked", "To https://git.example.test/me/app.git\n   1a2b3c4..5d6e7f8  main -> main", false},
	}
	for _, tc := range cases {
		if got := credentialNote(newCommandOutput([]byte(tc.out))); (got != "") != tc.note {
			t.Errorf("%s: note %q, want one: %v", tc.name, got, tc.note)
		}
	}
}
