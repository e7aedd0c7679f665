package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
)

// The notice names each locked directory once, roots first, grouped by
// why, the first few of a kind, and only when one is locked.
func TestLandlockNotice(t *testing.T) {
	steering := landlock.Lock{Reason: landlock.LockSteering, Path: "/p/.envrc"}
	secret := func(dir string) landlock.Lock { return landlock.Lock{Reason: landlock.LockSecret, Path: dir + "/.env"} }
	monorepo := map[string]landlock.Lock{"/p": steering}
	for i := range 40 {
		d := fmt.Sprintf("/p/svc%02d", i)
		monorepo[d] = secret(d)
	}
	tests := []struct {
		name   string
		roots  []string
		locked map[string]landlock.Lock
		want   string // a part of the notice; "" for none
	}{
		{"nothing locked", []string{"/p"}, nil, ""},
		{"the project's root", []string{"/p"}, map[string]landlock.Lock{"/p": steering}, "made directly in /p (it lacks names"},
		{"two roots", []string{"/q", "/p"}, map[string]landlock.Lock{"/p": steering, "/q": steering}, "made directly in /q and /p ("},
		{"two directories", []string{"/p"}, map[string]landlock.Lock{"/p": steering, "/p/.github": steering}, "made directly in /p and .github (each lacks"},
		{"beside a secret", []string{"/p"}, map[string]landlock.Lock{"/p": steering, "/p/cfg": secret("/p/cfg")},
			"in /p (it lacks names that steer the next session, which Landlock can keep from being made only by refusing every new entry there), nor in cfg (it holds a secret Gatehouse hides"},
		{"a repository's git dir", []string{"/p"}, map[string]landlock.Lock{"/p": steering, "/p/.git": steering},
			"made directly in /p and .git (each lacks names that steer the next session, which Landlock can keep from being made only by refusing every new entry there); what is there already, and other subdirectories, work as usual. So git run by the agent itself can read the repository but not stage, commit"},
		{"a monorepo of secrets", []string{"/p"}, monorepo, "nor in svc00, svc01, svc02, svc03, svc04 and 35 other directories (each holds a secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := landlockNotice(tt.roots, tt.locked)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("landlockNotice = %q, want it to hold %q", got, tt.want)
			}
		})
	}
}
