package call

import "testing"

func TestPrivilegeNote(t *testing.T) {
	cases := []struct {
		name, out string
		note      bool
	}{
		{"sudo", `sudo: The "no new privileges" flag is set, which prevents sudo from running as root.`, true},
		{"sudo on a nosuid mount", "sudo: effective uid is not 0, is /usr/bin/sudo on a file system with the 'nosuid' option set or an NFS file system without root privileges?", true},
		{"apt as root under bubblewrap", "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (2: No such file or directory)\nE: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?", true},
		{"su", "su: cannot set groups: Operation not permitted", true},
		{"dnf", "Error: This command has to be run with superuser privileges (under the root user on most systems).", true},
		{"a test that failed", "FAIL: TestParse (0.00s)", false},
		{"pip's own refusal", "error: externally-managed-environment", false},
	}
	for _, tc := range cases {
		if got := privilegeNote(newCommandOutput([]byte(tc.out))); (got != "") != tc.note {
			t.Errorf("%s: note %q, want one: %v", tc.name, got, tc.note)
		}
	}
}
