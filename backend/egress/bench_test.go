package egress

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/bench/medians"
)

// BenchmarkHTTPSThroughProxy is one HTTPS request on a fresh connection
// to a local server, through a run's proxy (CONNECT, decision, SNI peek,
// splice) and directly, interleaved in the same run; medians of each.
// The target: at most 5 ms added at the median.
func BenchmarkHTTPSThroughProxy(b *testing.B) {
	srv := tlsServer(b)
	p, err := New(Options{TestHosts: map[string]string{"pkgs.example.test:443": hostPort(srv)}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	run := p.Open(b.Context(), RunInfo{Session: "s", Call: "c", Decider: &decider{allow: map[string]bool{"pkgs.example.test:443": true}}, Recorder: &recorder{}})
	go run.Serve(ln)
	defer run.Close()

	tlsCfg := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	proxyURL, _ := url.Parse("http://" + ln.Addr().String())
	viaProxy := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: tlsCfg, DisableKeepAlives: true}}
	direct := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, DisableKeepAlives: true}}
	once := func(c *http.Client, u string) time.Duration {
		start := time.Now()
		resp, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return time.Since(start)
	}
	var d, v []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d = append(d, once(direct, srv.URL+"/"))
		v = append(v, once(viaProxy, "https://pkgs.example.test/"))
	}
	b.StopTimer()
	medians.Report(b, d, v, medians.Units{Base: "ms-direct-median", Run: "ms-proxy-median", Added: "ms-added", Ratio: "x-direct"})
}
