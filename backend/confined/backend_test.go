package confined

import "testing"

// A run is confined by Landlock or the container when the config names
// it or, with auto, when the daemon chose it for commands; by bubblewrap
// otherwise.
func TestRunBackend(t *testing.T) {
	for _, tc := range []struct{ configured, daemon, want string }{
		{"auto", "landlock", "landlock"},
		{"", "landlock", "landlock"},
		{"auto", "bwrap", "bwrap"},
		{"landlock", "bwrap", "landlock"},
		{"bwrap", "landlock", "bwrap"},
		{"container", "container", "container"},
		{"container", "bwrap", "container"},
		{"auto", "container", "container"},
		{"none", "bwrap", "bwrap"},
		{"auto", "", "bwrap"},
	} {
		if got := New(Deps{Backend: tc.daemon}).backend(tc.configured); got != tc.want {
			t.Errorf("configured %q, daemon %q: %s, want %s", tc.configured, tc.daemon, got, tc.want)
		}
	}
}
