package notify

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// Only 127.0.0.1 at the proxy's port is the proxy.
func TestProxyAddress(t *testing.T) {
	inet := func(port int, ip ...byte) []byte {
		b := make([]byte, 16)
		binary.LittleEndian.PutUint16(b, unix.AF_INET)
		binary.BigEndian.PutUint16(b[2:], uint16(port))
		copy(b[4:], ip)
		return b
	}
	six := make([]byte, 28)
	binary.LittleEndian.PutUint16(six, unix.AF_INET6)
	for _, tc := range []struct {
		name string
		sa   []byte
		want bool
	}{
		{"the proxy", inet(3128, 127, 0, 0, 1), true},
		{"another port", inet(3129, 127, 0, 0, 1), false},
		{"another loopback address", inet(3128, 127, 0, 0, 2), false},
		{"a remote host", inet(3128, 192, 0, 2, 1), false},
		{"IPv6", six, false},
		{"too short", []byte{2, 0, 0x0c}, false},
	} {
		if got := proxyAddress(tc.sa, 3128); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
