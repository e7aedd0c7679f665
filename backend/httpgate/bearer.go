package httpgate

import "net/http"

// BearerTransport sends every request through base (http.DefaultTransport
// when nil) with tok in its Authorization header, as the daemon's HTTP
// clients present their capability. (Not in package token: the static
// helper reads tokens, and links no net/http.)
func BearerTransport(tok string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return bearerTransport{tok, base}
}

type bearerTransport struct {
	tok  string
	base http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.base.RoundTrip(r)
}
