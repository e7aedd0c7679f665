package httpgate

import (
	"net/http"
	"sort"
	"strings"
)

// Forwarding headers are what a proxy or a tunnel adds to a request it
// relays. Gatehouse serves loopback clients directly, so a request that
// carries one came through something Gatehouse does not control (a
// passthrough tunnel, `ssh -R`, a reverse proxy): it is refused, and the
// daemon is told so it can show the person. The list is generic: the
// standard headers, then the client-address headers common proxies and
// tunnel services add.
var forwardingHeaders = []string{
	"Forwarded", "Via", "X-Real-Ip", "X-Client-Ip", "X-Cluster-Client-Ip", "True-Client-Ip",
	"Cf-Connecting-Ip", "Cf-Ray", "Fastly-Client-Ip", "X-Envoy-External-Address", "X-Original-Forwarded-For",
}

// forwardingPrefixes are header families added by relays.
var forwardingPrefixes = []string{"X-Forwarded-", "Ngrok-", "X-Ngrok-"}

// ForwardingHeaders lists the names (never the values) of the forwarding
// headers h carries, sorted.
func ForwardingHeaders(h http.Header) []string {
	var out []string
	for name := range h {
		canon := http.CanonicalHeaderKey(name)
		if isForwarding(canon) {
			out = append(out, canon)
		}
	}
	sort.Strings(out)
	return out
}

func isForwarding(canon string) bool {
	for _, f := range forwardingHeaders {
		if canon == f {
			return true
		}
	}
	for _, p := range forwardingPrefixes {
		if strings.HasPrefix(canon, p) {
			return true
		}
	}
	return false
}
