package protect

import "testing"

func TestRedactGitConfig(t *testing.T) {
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"identity only", "[user]\n\tname = P\n\temail = p@example.test\n", "", false},
		{"token as the user", "[url \"https://ghp_Zx8Kq2Lm4Np6Rt8Vw0Yb3Cd5Ef7Gh9Jk1Mn3P@forge.example.test/\"]\n\tinsteadOf = https://forge.example.test/\n",
			"[url \"https://REDACTED@forge.example.test/\"]\n\tinsteadOf = https://forge.example.test/\n", true},
		{"user and password", "[url \"https://x-access-token:s3cr3t@forge.example.test/\"]\n", "[url \"https://x-access-token:REDACTED@forge.example.test/\"]\n", true},
		{"a plain user name", "[url \"ssh://git@forge.example.test/\"]\n\tinsteadOf = https://forge.example.test/\n", "", false},
		{"extra header", "[http \"https://forge.example.test/\"]\n\textraHeader = Authorization: Bearer sk-live-9f8e\r\n", "[http \"https://forge.example.test/\"]\n\textraHeader = REDACTED\r\n", true},
		{"keys that hold one", "[sendemail]\n\tsmtpPass = hunter2\n[github]\n\ttoken=abc\n", "[sendemail]\n\tsmtpPass = REDACTED\n[github]\n\ttoken= REDACTED\n", true},
		{"an inline helper", "[credential]\n\thelper = \"!f() { echo username=p; echo password=ghp_abc123; }; f\"\n", "[credential]\n\thelper = \"!f() { echo username=p; echo password=REDACTED; }; f\"\n", true},
		{"a section named like a key", "[credential \"https://forge.example.test\"]\n\thelper = store\n", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := RedactGitConfig([]byte(tc.in))
			want := tc.want
			if !tc.changed {
				want = tc.in
			}
			if changed != tc.changed || string(got) != want {
				t.Errorf("got %q (%v), want %q (%v)", got, changed, want, tc.changed)
			}
		})
	}
}
