package call

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

func TestDirectNote(t *testing.T) {
	cases := []struct {
		name string
		mode sandbox.NetworkMode
		out  string
		says string
	}{
		{"ssh", sandbox.NetProxy, "ssh: Could not resolve hostname git.example.test: Temporary failure in name resolution", "ssh, git over ssh"},
		{"curl around the proxy", sandbox.NetProxy, "curl: (6) Could not resolve host: pkgs.example.test", "no network but its proxy"},
		{"node", sandbox.NetProxy, "TypeError: fetch failed\n  [cause]: Error: getaddrinfo EAI_AGAIN pkgs.example.test", "no network but its proxy"},
		{"go", sandbox.NetProxy, "dial tcp: lookup pkgs.example.test on 127.0.0.53:53: no such host", "no network but its proxy"},
		{"no network at all", sandbox.NetNone, "curl: (6) Could not resolve host: pkgs.example.test", "no network at all here"},
		{"the host's network", sandbox.NetHost, "curl: (6) Could not resolve host: pkgs.example.test", ""},
		{"a refusal by the proxy", sandbox.NetProxy, "curl: (56) CONNECT tunnel failed, response 403", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := directNote(tc.mode, newCommandOutput([]byte(tc.out)))
			if tc.says == "" && got != "" || tc.says != "" && !strings.Contains(got, tc.says) {
				t.Errorf("note %q, want one saying %q", got, tc.says)
			}
		})
	}
}
