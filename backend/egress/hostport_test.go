package egress

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// echoOnce listens on network's loopback, answers one line with "got "
// and the line, and returns its port.
func echoOnce(t *testing.T, network, addr string) int {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("no %s loopback here: %v", network, err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 64)
			n, _ := c.Read(b)
			c.Write([]byte("got " + string(b[:n])))
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// freePort is a loopback port nothing listens on (it did a moment ago).
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestServeHost: a host port the options list reaches the machine's
// service on 127.0.0.1 or ::1, recorded; an unlisted port, the daemon's
// own, and a port nothing listens on reach nothing, each recorded with
// its reason.
func TestServeHost(t *testing.T) {
	v4, v6 := echoOnce(t, "tcp4", "127.0.0.1:0"), echoOnce(t, "tcp6", "[::1]:0")
	own, idle := echoOnce(t, "tcp4", "127.0.0.1:0"), freePort(t)
	cases := []struct {
		name     string
		port     int
		listed   bool
		ruleDeny bool
		reply    string
		refused  string
	}{
		{"ipv4 service", v4, true, false, "got ping", ""},
		{"ipv6 service", v6, true, false, "got ping", ""},
		{"not listed", v4, false, false, "", "is not one of [network] host_ports"},
		{"a rule denies it", v4, true, true, "", "the connection to port"},
		{"the daemon's own", own, true, false, "", "is Gatehouse's own"},
		{"nothing listens", idle, true, false, "", "nothing answers on port"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{DialTimeout: 2 * time.Second}
			if tc.listed {
				o.HostPorts = []int{tc.port}
			}
			p, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			p.Reserve(own)
			rec, dec := &recorder{}, &decider{allow: map[string]bool{}}
			dec.allow[fmt.Sprintf("localhost:%d", tc.port)] = !tc.ruleDeny
			run := p.Open(t.Context(), RunInfo{Session: "s1", Call: "c1", Decider: dec, Recorder: rec})
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go run.ServeHost(tc.port, ln)
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Write([]byte("ping"))
			got, _ := io.ReadAll(c)
			c.Close()
			ln.Close()
			run.Close()
			if string(got) != tc.reply {
				t.Errorf("reply %q, want %q", got, tc.reply)
			}
			all := rec.all()
			if len(all) != 1 {
				t.Fatalf("%d records, want 1: %+v", len(all), all)
			}
			r := all[0]
			if r.Method != MethodHost || r.Port != tc.port || r.Session != "s1" || r.Call != "c1" {
				t.Errorf("record %+v", r)
			}
			if tc.refused == "" && (r.Refused != "" || r.BytesUp != 4 || r.BytesDown != 8) {
				t.Errorf("record %+v, want 4 bytes up, 8 down, not refused", r)
			}
			if tc.refused != "" && !strings.Contains(r.Refused, tc.refused) {
				t.Errorf("refused %q, want it to say %q", r.Refused, tc.refused)
			}
			for _, q := range dec.asked {
				if !q.Listed || q.Domain != "localhost" || q.Port != tc.port || q.Call != "c1" {
					t.Errorf("the decider was asked %+v", q)
				}
			}
		})
	}
}

func TestParseHandedLabel(t *testing.T) {
	cases := []struct {
		label   string
		host    int
		process string
		ok      bool
	}{
		{"process=node (pid 7)", 0, "node (pid 7)", true},
		{"host=5432 process=psql (pid 9)", 5432, "psql (pid 9)", true},
		{"host=5432", 0, "", false},
		{"host=0 process=x", 0, "", false},
		{"host=70000 process=x", 0, "", false},
		{"host=ab process=x", 0, "", false},
		{"proc=x", 0, "", false},
	}
	for _, tc := range cases {
		host, process, ok := parseHandedLabel(tc.label)
		if host != tc.host || process != tc.process || ok != tc.ok {
			t.Errorf("%q: %d %q %v, want %d %q %v", tc.label, host, process, ok, tc.host, tc.process, tc.ok)
		}
	}
}
