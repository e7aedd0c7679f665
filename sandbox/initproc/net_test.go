package initproc

import "testing"

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
	}
	for _, tc := range tests {
		if err := tc.n.check(); (err == nil) != tc.ok {
			t.Errorf("%+v: check = %v, want ok=%v", tc.n, err, tc.ok)
		}
	}
}
