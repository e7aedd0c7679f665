package wssecrets

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQAAACD\n-----END OPENSSH PRIVATE KEY-----\n"
	cases := []struct {
		name, rel, text string
		want            []string // name=value
	}{
		{"dotenv", ".env", "# comment\nAPI_KEY=sk-live-0123456789\nexport DB_PASSWORD=\"hunter2hunter2\" # trailing\nSINGLE='quoted value 12345'\nPORT=8080\nDEBUG=true\nAPP_ENV=production\nAPP_URL=http://localhost:3000\n",
			[]string{".env:API_KEY=sk-live-0123456789", ".env:DB_PASSWORD=hunter2hunter2", ".env:SINGLE=quoted value 12345"}},
		{"short values are not redacted", ".env", "API_KEY=1234567\nTOKEN=true\n", nil},
		{"a password in a URL", ".env.local", "DATABASE_URL=postgres://app:s3cretpassw0rd@db:5432/app\n",
			[]string{".env.local:password=s3cretpassw0rd", ".env.local:DATABASE_URL=postgres://app:s3cretpassw0rd@db:5432/app"}},
		{"lines of a diff", ".env", "+API_KEY=first-secret-value-1234\n-API_KEY=older-secret-value-99\n",
			[]string{".env:API_KEY=first-secret-value-1234", ".env:API_KEY=older-secret-value-99"}},
		{"a private key", "deploy/id_ed25519", pem,
			[]string{"deploy/id_ed25519:OPENSSH PRIVATE KEY=b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "deploy/id_ed25519:OPENSSH PRIVATE KEY=AAAAMwAAAAtzc2gtZWQyNTUxOQAAACD"}},
		{"JSON credentials", "credentials.json", `{"type": "service_account", "project_id": "demo", "client_secret": "abcDEF123456ghi", "client_id": "1234567890123456789012345"}`,
			[]string{"credentials.json:client_secret=abcDEF123456ghi"}},
		{"npmrc and netrc", ".npmrc", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnop\nmachine api.example.test login me password netrcpassword1\n",
			[]string{".npmrc:password=netrcpassword1", ".npmrc://registry.npmjs.org/:_authToken=npm_abcdefghijklmnop"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, v := range Parse(tc.rel, []byte(tc.text)) {
				got = append(got, v.Name+"="+v.Value)
			}
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
