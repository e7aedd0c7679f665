package notify

import (
	"net"
	"testing"
)

// BenchmarkOwnPortCheck: what a connect to a run's own server costs the
// supervisor on a machine with 2,000 listening sockets, by the kernel's
// socket diagnostics (what hold uses) against reading /proc/net/tcp (its
// fallback), in the same run.
func BenchmarkOwnPortCheck(b *testing.B) {
	var lns []net.Listener
	for range 2000 {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			b.Skipf("SKIP: cannot open 2,000 listeners here (raise ulimit -n): %v", err)
		}
		lns = append(lns, ln)
	}
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	port := lns[0].Addr().(*net.TCPAddr).Port
	b.Run("sockdiag", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := listenersOn(port, func(uint64) { n++ }); err != nil || n != 1 {
				b.Fatalf("%d %v", n, err)
			}
		}
	})
	b.Run("proc", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
				listeningIn(table, port, func(uint64) { n++ })
			}
			if n != 1 {
				b.Fatalf("%d", n)
			}
		}
	})
}
