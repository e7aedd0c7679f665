package notify

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// Only 127.0.0.1 at a route's port is routed, to the route's port.
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
		want int
	}{
		{"the proxy", inet(3128, 127, 0, 0, 1), 3128},
		{"a port that leads elsewhere", inet(8700, 127, 0, 0, 1), 41234},
		{"another port", inet(3129, 127, 0, 0, 1), 0},
		{"the port led to", inet(41234, 127, 0, 0, 1), 0},
		{"another loopback address", inet(3128, 127, 0, 0, 2), 0},
		{"a remote host", inet(3128, 192, 0, 2, 1), 0},
		{"IPv6", six, 0},
		{"too short", []byte{2, 0, 0x0c}, 0},
	} {
		got, ok := routed(tc.sa, Routes{3128: 3128, 8700: 41234})
		if got != tc.want || ok != (tc.want != 0) {
			t.Errorf("%s: %d %v, want %d", tc.name, got, ok, tc.want)
		}
	}
}
