package call

import "testing"

func TestMarkerSet(t *testing.T) {
	set := newMarkerSet([]string{"connection refused", "could not resolve host", "eai_again"})
	cases := []struct {
		text string
		from int
		want int
	}{
		{"curl: (7) failed: connection refused", 0, 18},
		{"could not resolve host: x", 0, 0},
		{"getaddrinfo eai_again x", 0, 12},
		{"connection reset by peer", 0, -1},
		{"connection refused, connection refused", 1, 20},
		{"e", 0, -1},
		{"", 0, -1},
	}
	for _, tc := range cases {
		if got := set.next([]byte(tc.text), tc.from); got != tc.want {
			t.Errorf("next(%q, %d) = %d, want %d", tc.text, tc.from, got, tc.want)
		}
	}
}
