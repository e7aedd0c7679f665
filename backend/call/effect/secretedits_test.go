package effect

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// What a run does to a tracked .env is found from its two sides (a
// staged run's layers, a checked run's checkpoint before and the
// workspace after): the file itself, the index's blob, and the blob a
// moved branch records.
func TestSecretEdits(t *testing.T) {
	cases := []struct {
		name   string
		script string
		expose []string
		want   []string // substrings, one finding each; none when empty
	}{
		{name: "a commit of other files", script: "echo y >> f.txt && git commit -qam more"},
		{name: "stash and pop", script: "echo y >> f.txt && git stash -q && git stash pop -q"},
		{name: "the stand-in committed", script: "printf '####\\n' > .env && git commit -qam more",
			want: []string{"the secret file .env is modified", "git's index records a different .env", "main records a different .env"}},
		{name: "the stand-in added", script: "printf '####\\n' > .env && git add .env",
			want: []string{"the secret file .env is modified", "git's index records a different .env"}},
		{name: "reset to a commit with another .env", script: "git reset -q --hard HEAD~1",
			want: []string{"the secret file .env is modified", "git's index records a different .env", "main records a different .env"}},
		{name: "an exposed .env", script: "printf 'K=v\\n' > .env && git commit -qam more", expose: []string{".env"}},
	}
	for _, tc := range cases {
		for _, mode := range []string{"staged", "checked"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				ws := gitRepo(t, 2)
				setup := "printf 'API_KEY=first-value-123\\n' > .env && git add .env && git commit -qm env && " +
					"printf 'API_KEY=second-value-456\\n' > .env && git commit -qam env2"
				hostSh(t, ws, setup)
				cs := runAs(t, mode, ws, tc.script)
				expose, err := protect.ParseExposure(tc.expose)
				if err != nil {
					t.Fatal(err)
				}
				got := SecretEdits(t.Context(), cs.Sets[0], cs.Layers(0), ws, expose)
				if len(got) != len(tc.want) {
					t.Fatalf("edits %q, want %q", got, tc.want)
				}
				for _, w := range tc.want {
					if !strings.Contains(strings.Join(got, "\n"), w) {
						t.Errorf("edits %q lack %q", got, w)
					}
				}
			})
		}
	}
}
