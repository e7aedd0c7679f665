package listen

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestTCPRefusesNonLoopback(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
		loop   bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:0", false, true},
		{"localhost:0", false, true},
		{"0.0.0.0:0", false, false},
		{"[::]:0", false, false},
		{"192.0.2.1:0", false, false},
	}
	for _, tt := range tests {
		loop, err := IsLoopbackAddr(tt.addr)
		if err != nil || loop != tt.loop {
			t.Errorf("IsLoopbackAddr(%s) = %v %v", tt.addr, loop, err)
		}
		if !tt.loop {
			if _, err := TCP(tt.addr, false, 0); !errors.Is(err, ErrNotLoopback) {
				t.Errorf("TCP(%s) err = %v, want ErrNotLoopback", tt.addr, err)
			}
		}
	}
	ln, err := TCP("127.0.0.1:0", false, 4)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestUnixSocketModeAndSameUID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "control.sock")
	ln, err := Unix(p, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v, %v", st.Mode().Perm(), err)
	}
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	c, err := net.Dial("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	if string(b) != "hi" {
		t.Fatalf("same-uid peer got %q", b)
	}
	// A second daemon must not steal a live socket.
	if _, err := Unix(p, slog.Default()); err == nil {
		t.Fatal("second listener on a live socket must fail")
	}
}

func TestUnixRefusesOtherUID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "control.sock")
	ln, err := Unix(p, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := ln.(*sameUIDListener)
	l.peerUID = func(*net.UnixConn) (uint32, error) { return l.uid + 1, nil }
	accepted := make(chan struct{})
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			close(accepted)
		}
	}()
	c, err := net.Dial("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	// The listener must close us without handing the conn to the server.
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		t.Fatal("read data from a refused connection")
	}
	select {
	case <-accepted:
		t.Fatal("connection from another uid was accepted")
	default:
	}
}
