package netguard

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestBlocked(t *testing.T) {
	cases := []struct {
		addr    string
		blocked bool
	}{
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"2606:4700:4700::1111", false},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::808:808", false},
		{"2002:808:808::1", false},
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.32.0.1", false},
		{"192.168.1.1", true},
		{"169.254.169.254", true},
		{"169.254.1.1", true},
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"100.128.0.1", false},
		{"0.0.0.0", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"255.255.255.255", true},
		{"168.63.129.16", true},
		{"::", true},
		{"::1", true},
		{"fe80::1", true},
		{"fc00::1", true},
		{"fd00:ec2::254", true},
		{"ff02::1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:10.0.0.1", true},
		{"::127.0.0.1", true},
		{"::8.8.8.8", true}, // deprecated compatible form
		{"::ffff:0:127.0.0.1", true},
		{"64:ff9b::7f00:1", true},
		{"64:ff9b::a9fe:a9fe", true},
		{"64:ff9b:1::1", true},
		{"2002:7f00:1::", true},
		{"2002:a9fe:a9fe::1", true},
		{"2001:0:4136:e378::1", true}, // Teredo
		{"2001:db8::1", true},
	}
	for _, c := range cases {
		reason, got := Blocked(netip.MustParseAddr(c.addr))
		if got != c.blocked {
			t.Errorf("Blocked(%s) = %v (%s), want %v", c.addr, got, reason, c.blocked)
		}
		if got && reason == "" {
			t.Errorf("Blocked(%s) gave no reason", c.addr)
		}
	}
	if _, bad := Blocked(netip.Addr{}); !bad {
		t.Error("the zero address must be blocked")
	}
}

func TestCheckURL(t *testing.T) {
	cases := []struct {
		url  string
		ok   bool
		want string // substring of the reason
	}{
		{"https://example.com/a?b=c", true, ""},
		{"http://8.8.8.8/", true, ""},
		{"http://[2606:4700::1111]:8080/", true, ""},
		{"HTTPS://Example.COM./", true, ""},
		{"file:///etc/passwd", false, "file scheme"},
		{"gopher://example.com/", false, "gopher scheme"},
		{"ftp://example.com/", false, "ftp scheme"},
		{"data:text/plain,hi", false, "data scheme"},
		{"javascript:alert(1)", false, "javascript scheme"},
		{"dict://127.0.0.1:11211/", false, "dict scheme"},
		{"//example.com/", false, "no scheme"},
		{"http://user:pw@example.com/", false, "password"},
		{"http://user@example.com/", false, "user name"},
		{"http://example.com@127.0.0.1/", false, "password"},
		{"http:///nohost", false, "no host"},
		{"http://2130706433/", false, "127.0.0.1"},
		{"http://0x7f.1/", false, "127.0.0.1"},
		{"http://0x7f000001/", false, "127.0.0.1"},
		{"http://017700000001/", false, "127.0.0.1"},
		{"http://0177.0.0.1/", false, "127.0.0.1"},
		{"http://127.1/", false, "127.0.0.1"},
		{"http://127.0.1/", false, "127.0.0.1"},
		{"http://0/", false, "0.0.0.0"},
		{"http://0x7f.0x0.0x0.0x1/", false, "127.0.0.1"},
		{"http://127.000.000.001/", false, "127.0.0.1"},
		{"http://3232235777/", false, "192.168.1.1"},
		{"http://2852039166/", false, "169.254.169.254"},
		{"http://127.0.0.1/", false, "loopback"},
		{"http://127.0.0.1./", false, "loopback"},
		{"http://0.0.0.0/", false, "unspecified"},
		{"http://169.254.169.254/latest/meta-data/", false, "metadata"},
		{"http://[::1]/", false, "loopback"},
		{"http://[::ffff:127.0.0.1]/", false, "IPv4-mapped"},
		{"http://[::ffff:7f00:1]/", false, "IPv4-mapped"},
		{"http://[0:0:0:0:0:ffff:127.0.0.1]/", false, "IPv4-mapped"},
		{"http://[::127.0.0.1]/", false, "IPv4-compatible"},
		{"http://[64:ff9b::127.0.0.1]/", false, "NAT64"},
		{"http://[2002:7f00:1::]/", false, "6to4"},
		{"http://[fd00:ec2::254]/", false, "metadata"},
		{"http://[fe80::1%25eth0]/", false, "zone"},
		{"http://localhost/", false, "localhost"},
		{"http://LocalHost./", false, "localhost"},
		{"http://app.localhost/", false, "localhost"},
		{"http://example.123/", false, "ending in a number"},
		{"http://ex ample.com/", false, ""},
		{"http://exämple.com/", false, "punycode"},
	}
	for _, c := range cases {
		_, err := CheckURL(c.url)
		if c.ok {
			if err != nil {
				t.Errorf("CheckURL(%q) = %v, want ok", c.url, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("CheckURL(%q) accepted", c.url)
			continue
		}
		if c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckURL(%q) = %q, want it to mention %q", c.url, err, c.want)
		}
		var be *BlockedError
		if strings.Contains(c.url, " ") {
			continue // a parse error, not a refusal
		}
		if !errors.As(err, &be) || !errors.Is(err, ErrBlocked) {
			t.Errorf("CheckURL(%q) error %T is not a BlockedError", c.url, err)
		}
	}
}

func TestErrorsHideQueryAndCredentials(t *testing.T) {
	_, err := CheckURL("ftp://bob:hunter2@example.com/x?token=abc123")
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "abc123") {
		t.Fatalf("error leaks secrets: %v", err)
	}
}
