package agentbox

import (
	"slices"
	"testing"
)

// The run's home and temporary directory replace the person's, wherever
// they stood; everything else is kept in order.
func TestWithEnv(t *testing.T) {
	for _, tc := range []struct {
		env, set, want []string
	}{
		{[]string{"PATH=/bin", "HOME=/root"}, []string{"HOME=/run/home"}, []string{"PATH=/bin", "HOME=/run/home"}},
		{[]string{"TMPDIR=/tmp", "A=1"}, []string{"HOME=/h", "TMPDIR=/t"}, []string{"A=1", "HOME=/h", "TMPDIR=/t"}},
		{[]string{"HOMEDIR=/x"}, []string{"HOME=/h"}, []string{"HOMEDIR=/x", "HOME=/h"}},
		{nil, []string{"HOME=/h"}, []string{"HOME=/h"}},
	} {
		if got := withEnv(tc.env, tc.set...); !slices.Equal(got, tc.want) {
			t.Errorf("withEnv(%v, %v) = %v, want %v", tc.env, tc.set, got, tc.want)
		}
	}
}
