package initproc

import (
	"maps"
	"testing"
)

func TestNetCheck(t *testing.T) {
	tests := []struct {
		n  Net
		ok bool
	}{
		{Net{Mode: NetNone}, true},
		{Net{Mode: NetNone, HostNamespace: true}, true},
		{Net{Mode: NetHost}, true},
		{Net{Mode: NetProxy, HostNamespace: true, ProxyPort: 4000}, true},
		{Net{Mode: NetProxy, Listen: "127.0.0.1:3128"}, true},
		{Net{Mode: NetProxy}, true}, // a stage that only installs the filter
		{Net{Mode: ""}, false},
		{Net{Mode: "open"}, false},
		{Net{Mode: NetNone, ProxyPort: 80}, false},
		{Net{Mode: NetProxy, HostNamespace: true}, false},
		{Net{Mode: NetProxy, HostNamespace: true, ProxyPort: 70000}, false},
		{Net{Mode: NetProxy, Listen: "localhost"}, false},
		{Net{Mode: NetProxy, ProxyPort: 80}, false},
		// A whole agent's routes: only beside a proxy in the host's
		// namespace, each between two ports.
		{Net{Mode: NetProxy, HostNamespace: true, ProxyPort: 4000, Routes: map[int]int{3128: 4000, 7465: 4001}}, true},
		{Net{Mode: NetProxy, HostNamespace: true, ProxyPort: 4000, Routes: map[int]int{3128: 0}}, false},
		{Net{Mode: NetProxy, HostNamespace: true, ProxyPort: 4000, Routes: map[int]int{70000: 4000}}, false},
		{Net{Mode: NetProxy, Listen: "127.0.0.1:3128", Routes: map[int]int{3128: 4000}}, false},
		{Net{Mode: NetNone, HostNamespace: true, Routes: map[int]int{3128: 4000}}, false},
	}
	for _, tc := range tests {
		if err := tc.n.check(); (err == nil) != tc.ok {
			t.Errorf("%+v: check = %v, want ok=%v", tc.n, err, tc.ok)
		}
	}
}

// A whole agent's routes and its proxy's port are all it may dial.
func TestNetRoutes(t *testing.T) {
	n := Net{Mode: NetProxy, HostNamespace: true, ProxyPort: 4000, Routes: map[int]int{3128: 4000, 7465: 4001}}
	if got, want := n.routes(), map[int]int{4000: 4000, 3128: 4000, 7465: 4001}; !maps.Equal(got, want) {
		t.Errorf("routes %v, want %v", got, want)
	}
}
