package call

import "strings"

// A person whose git config signs every commit (commit.gpgsign, with gpg
// or an SSH key) keeps that key in a place the sandbox hides, so git
// there fails to make the commit with the signer's error alone ("gpg
// failed to sign the data", "Couldn't load public key"). The note says
// why, and leaves the choice of an unsigned commit to the person.

// signingNote is the note for a commit or tag git could not sign, or "".
func signingNote(stderr []byte) string {
	lower := strings.ToLower(string(stderr))
	signer := strings.Contains(lower, "gpg") || strings.Contains(lower, "ssh-keygen") || strings.Contains(lower, "public key")
	failed := strings.Contains(lower, "failed to sign") || strings.Contains(lower, "unable to sign") ||
		signer && strings.Contains(lower, "failed to write commit object")
	if !failed {
		return ""
	}
	return "The person's git config signs commits and tags with a key Gatehouse's sandbox hides (commit.gpgsign, tag.gpgSign), so git could not sign this one and made none. Ask the person whether to commit unsigned here (git commit --no-gpg-sign), to sign it later themselves."
}
