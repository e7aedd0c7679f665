package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/netguard"
)

// oneAddress resolves every name to the test server.
type oneAddress netip.Addr

func (a oneAddress) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.Addr(a)}, nil
}

// redirects answers AllowRedirect from a set of hosts, and remembers what
// it was asked.
type redirects struct {
	allow map[string]bool
	asked []string
}

func (r *redirects) AllowRedirect(_ context.Context, _ *call.InFlight, host string) error {
	r.asked = append(r.asked, host)
	if !r.allow[host] {
		return errors.New("not allowed by policy")
	}
	return nil
}

// TestFetchFollowsOnlyClearedRedirects: the first host was cleared by the
// gate; a redirect to another host is put to policy, and a refusal stops
// the fetch before that host is reached. The page comes back as outside
// content.
func TestFetchFollowsOnlyClearedRedirects(t *testing.T) {
	var port string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host != "" && strings.HasPrefix(r.Host, "other.test") && r.URL.Path == "/page":
			fmt.Fprint(w, "the other page")
		case r.URL.Path == "/to-other":
			http.Redirect(w, r, "http://other.test:"+port+"/page", http.StatusFound)
		default:
			fmt.Fprint(w, "first page")
		}
	}))
	t.Cleanup(srv.Close)
	ap := netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))
	port = fmt.Sprint(ap.Port())
	tests := []struct {
		name, path string
		allow      bool
		want       string // body, or "" when refused
		asked      []string
	}{
		{"same host", "/", false, "first page", nil},
		{"redirect refused", "/to-other", false, "", []string{"other.test"}},
		{"redirect allowed", "/to-other", true, "the other page", []string{"other.test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := &redirects{allow: map[string]bool{"other.test": tt.allow}}
			d := Deps{Redirects: rd, Fetch: netguard.Options{Resolver: oneAddress(ap.Addr()), PermitForTesting: []netip.AddrPort{ap}}}
			u, _ := url.Parse("http://first.test:" + port + tt.path)
			out, err := fetch(t.Context(), d, &call.InFlight{}, u)
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "not allowed by policy") {
					t.Fatalf("fetch = %q, %v; want the redirect refused", out.Text, err)
				}
			} else if err != nil || out.Text != tt.want || out.External != "web" || out.Structured["body"] != tt.want {
				t.Fatalf("fetch = %+v, %v; want %q as outside content", out, err, tt.want)
			}
			if fmt.Sprint(rd.asked) != fmt.Sprint(tt.asked) {
				t.Errorf("policy asked about %v, want %v", rd.asked, tt.asked)
			}
		})
	}
}
