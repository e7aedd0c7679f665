package call

import "testing"

// A commit or tag git could not sign gets the note, whatever signed it;
// another failure does not.
func TestSigningNote(t *testing.T) {
	for _, tc := range []struct {
		name, stderr string
		want         bool
	}{
		{"ssh key hidden", "error: Couldn't load public key /home/p/.ssh/id_ed25519.pub: No such file or directory?\n\nfatal: failed to write commit object\n", true},
		{"gpg", "error: gpg failed to sign the data\nfatal: failed to write commit object\n", true},
		{"a tag", "error: gpg failed to sign the data\nerror: unable to sign the tag\n", true},
		{"no ssh-keygen", "error: cannot run ssh-keygen: No such file or directory\nfatal: failed to write commit object\n", true},
		{"disk full", "error: insufficient permission for adding an object\nfatal: failed to write commit object\n", false},
		{"nothing to commit", "nothing to commit, working tree clean\n", false},
		{"ssh refused elsewhere", "Load key \"/home/p/.ssh/id\": No such file or directory\nfatal: Could not read from remote repository.\n", false},
	} {
		if got := signingNote([]byte(tc.stderr)) != ""; got != tc.want {
			t.Errorf("%s: note %v, want %v", tc.name, got, tc.want)
		}
	}
}
