package call

// A command sees none of the person's credentials: git's credential
// helpers and ~/.git-credentials, gh's token, ~/.npmrc's, ~/.aws, ~/.ssh.
// A push, a publish or a private fetch then fails as a login that found
// no password ("could not read Username", "Authentication failed",
// E401), and an agent takes it for a wrong or missing password and asks
// for one, or tries another way in. The note says it was Gatehouse's
// boundary, and what the person can do.

// credentialFailures are what clients print when they could not log in.
var credentialFailures = []string{
	"could not read username for", "could not read password for", "terminal prompts disabled",
	"authentication failed for 'http", "gh auth login", "npm error code e401", "npm err! code e401",
	"unable to locate credentials",
}

// credentialNote is the note for a command whose output shows it could
// not log in, "" when it does not.
func credentialNote(out *commandOutput) string {
	if !out.has(credentialFailures) {
		return ""
	}
	return "Gatehouse's sandbox shows commands none of the person's credentials (git's credential helpers and ~/.git-credentials, gh's and npm's tokens, ~/.aws, ~/.ssh), so a command cannot log in anywhere as the person: this failure is the sandbox's, not a wrong or missing password. Ask the person to run that step themselves (a git push, a publish), or to give the tool a token of its own as a [[secret]] in Gatehouse's config, which only that program receives."
}
