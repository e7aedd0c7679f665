package listen

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
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

// The socket is made without touching the process's umask: directories
// other goroutines make meanwhile keep their modes (the build cache's came
// out 0600 when it was narrowed). It leaves nothing beside it, and goes
// with Close.
func TestUnixKeepsUmaskAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "control.sock")
	other := t.TempDir()
	stop := make(chan struct{})
	made := make(chan []string)
	go func() {
		var dirs []string
		for i := 0; ; i++ {
			select {
			case <-stop:
				made <- dirs
				return
			default:
			}
			d := filepath.Join(other, strconv.Itoa(i))
			if os.Mkdir(d, 0o700) == nil {
				dirs = append(dirs, d)
			}
		}
	}()
	for range 200 {
		ln, err := Unix(p, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "control.sock" {
			t.Fatalf("beside the socket: %v", ents)
		}
		ln.Close()
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("socket left after Close: %v", err)
		}
	}
	close(stop)
	for _, d := range <-made {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s made meanwhile has mode %v (%v)", d, st.Mode().Perm(), err)
		}
	}
}
