package token

import "net/http"

// Transport sends every request through base (http.DefaultTransport when
// nil) with tok in its Authorization header, as the daemon's HTTP clients
// present their capability.
func Transport(tok string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return bearer{tok, base}
}

type bearer struct {
	tok  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.base.RoundTrip(r)
}
