package netguard

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// CheckURL parses raw and applies the checks that need no network: scheme,
// credentials, and host syntax (including the legacy numeric IPv4 forms that
// some resolvers accept, such as 2130706433, 0x7f.1 or 127.1).
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("the URL could not be parsed; send an absolute http or https URL: %w", err)
	}
	if err := checkParsed(u); err != nil {
		return nil, err
	}
	return u, nil
}

func checkParsed(u *url.URL) error {
	shown := safeURL(u)
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return &BlockedError{URL: shown, Reason: "the URL has no scheme; only http and https URLs can be fetched"}
	default:
		return &BlockedError{URL: shown, Reason: "the " + u.Scheme + " scheme is not allowed; only http and https URLs can be fetched"}
	}
	if u.User != nil {
		return &BlockedError{URL: shown, Reason: "URLs with a user name or password are not fetched; remove the user:password@ part"}
	}
	if u.Opaque != "" || u.Host == "" {
		return &BlockedError{URL: shown, Reason: "the URL has no host"}
	}
	_, _, err := classifyHost(u.Hostname())
	if err != nil {
		err.URL = shown
		return err
	}
	return nil
}

// classifyHost returns either the literal address of host, or its
// normalised name to resolve.
func classifyHost(host string) (netip.Addr, string, *BlockedError) {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "" {
		return netip.Addr{}, "", &BlockedError{Reason: "the URL has no host"}
	}
	if strings.Contains(h, "%") {
		return netip.Addr{}, "", &BlockedError{Host: h, Reason: "IPv6 zone identifiers are not allowed"}
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if reason, bad := Blocked(a); bad {
			return a, "", &BlockedError{Host: h, Addr: a, Reason: "it is " + reason}
		}
		return a, "", nil
	}
	if a, ok := legacyIPv4(h); ok {
		return a, "", &BlockedError{Host: h, Addr: a, Reason: "it is a non-standard way of writing the IP address " + a.String() + "; write addresses as plain dotted quads"}
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c >= 0x80 {
			return netip.Addr{}, "", &BlockedError{Host: h, Reason: "non-ASCII host names must be sent in their xn-- (punycode) form"}
		}
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return netip.Addr{}, "", &BlockedError{Host: h, Reason: "the host name contains characters that are not allowed"}
		}
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return netip.Addr{}, "", &BlockedError{Host: h, Reason: "localhost names the machine itself"}
	}
	labels := strings.Split(h, ".")
	if last := labels[len(labels)-1]; last == "" || isNumberLike(last) {
		// WHATWG URL parsing treats a numeric last label as an IPv4
		// address; a name like this is either that or invalid.
		return netip.Addr{}, "", &BlockedError{Host: h, Reason: "a host name ending in a number is not a valid name"}
	}
	return netip.Addr{}, h, nil
}

// legacyIPv4 parses the inet_aton forms: one to four parts, each decimal,
// octal (leading 0) or hex (0x), the last part filling the remaining bytes.
func legacyIPv4(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseLegacyPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - uint(i)))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-uint(len(vals)))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseLegacyPart(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true // "0x" alone is zero to inet_aton
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	v, err := strconv.ParseUint(p, base, 32)
	return v, err == nil
}

// isNumberLike reports labels made only of digits, or 0x and hex digits.
func isNumberLike(l string) bool {
	if strings.HasPrefix(l, "0x") {
		l = l[2:]
		for i := 0; i < len(l); i++ {
			if !strings.ContainsRune("0123456789abcdef", rune(l[i])) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return l != ""
}

// safeURL renders u for errors and logs: no credentials, no query or
// fragment (they may carry tokens).
func safeURL(u *url.URL) string {
	v := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if u.Opaque != "" {
		return u.Scheme + ":…"
	}
	s := v.String()
	if u.RawQuery != "" {
		s += "?…"
	}
	return s
}
