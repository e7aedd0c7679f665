package cli

import (
	"net"
	"strings"
	"testing"
)

func TestPrintDoctorHostPorts(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	up := ln.Addr().(*net.TCPAddr).Port
	idle, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := idle.Addr().(*net.TCPAddr).Port
	idle.Close()
	cases := []struct {
		name  string
		ports []int
		on    bool
		want  []string
	}{
		{"none", nil, true, []string{"None: commands reach no service"}},
		{"network off", []int{up}, false, []string{"enabled = false"}},
		{"one up, one down", []int{up, down}, true, []string{"a service answers at 127.0.0.1:", "nothing answers on 127.0.0.1 or ::1 now"}},
	}
	for _, tc := range cases {
		var b strings.Builder
		printDoctorHostPorts(t.Context(), &b, tc.ports, tc.on)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, w, b.String())
			}
		}
	}
}
