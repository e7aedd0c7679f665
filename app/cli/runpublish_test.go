package cli

import (
	"bytes"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// What --publish takes, and what it says once the backend is known.
func TestPublishPorts(t *testing.T) {
	for _, tc := range []struct {
		ports []int
		ok    bool
	}{{[]int{5173, 8080}, true}, {nil, true}, {[]int{0}, false}, {[]int{70000}, false}, {[]int{5173, -1}, false}} {
		if err := checkPorts(tc.ports); (err == nil) != tc.ok {
			t.Errorf("%v: %v", tc.ports, err)
		}
	}
	free, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := free.Addr().(*net.TCPAddr).Port
	free.Close()

	p, err := publish([]int{port}, false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p.announce(false, &out)
	if !strings.Contains(out.String(), "published at http://127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("announced %q", out.String())
	}
	// The port is taken while the run lasts: a second run cannot have it.
	if _, err := publish([]int{port}, false); err == nil || !strings.Contains(err.Error(), "is in use on this machine") {
		t.Errorf("a port in use: %v", err)
	}
	p.close()

	// Taken before the daemon chose Landlock (the auto backend): let go
	// once it did.
	p, err = publish([]int{port}, false)
	if err != nil {
		t.Fatal(err)
	}
	p.announce(true, &bytes.Buffer{})
	if ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port)); err != nil {
		t.Errorf("the port is still held once the run is on Landlock: %v", err)
	} else {
		ln.Close()
	}

	// Under Landlock the agent's own server takes the port: nothing here
	// listens on it, and the run says where it is.
	p, err = publish([]int{port}, true)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	p.announce(true, &out)
	if ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port)); err != nil {
		t.Errorf("the port is held under Landlock: %v", err)
	} else {
		ln.Close()
	}
	if !strings.Contains(out.String(), "under Landlock the agent's servers listen on this machine's loopback") {
		t.Errorf("announced %q", out.String())
	}
	p.close()
}

func TestPublishedFromEnv(t *testing.T) {
	cases := []struct {
		v    string
		want []int
		bad  bool
	}{
		{"", nil, false},
		{"5173", []int{5173}, false},
		{"5173,3000", []int{5173, 3000}, false},
		{" 5173  3000 ", []int{5173, 3000}, false},
		{"5173,dev", nil, true},
		{"70000", nil, true},
		{"0", nil, true},
	}
	for _, tc := range cases {
		got, err := publishedFromEnv(tc.v)
		if (err != nil) != tc.bad || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v %v, want %v (error %v)", tc.v, got, err, tc.want, tc.bad)
		}
		if err != nil && !strings.Contains(err.Error(), "GATEHOUSE_PUBLISH") {
			t.Errorf("%q: the error does not name the variable: %v", tc.v, err)
		}
	}
}
