//go:build integration

package cli_test

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestAskHumanThroughCard: a client without elicitation gets the person's
// typed answer through the approval card.
func TestAskHumanThroughCard(t *testing.T) {
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "asker")
	done := make(chan outcome, 1)
	go func() {
		done <- callAsync(t.Context(), s, "ask_human", map[string]any{"question": "Which database should the tests use?"})
	}()
	a := d.WaitApproval(clitest.CardWait)
	if a.Question != "Which database should the tests use?" {
		t.Fatalf("card: %+v", a)
	}
	d.Decide(a.ID, "allow", "once", "the sqlite one in testdata/")
	o := <-done
	if o.err != nil || o.res.IsError || clitest.Text(t, o.res) != "the sqlite one in testdata/" {
		t.Fatalf("answer: %v %+v", o.err, o.res)
	}
}

// TestFetchURLRefusesLocalListener: the SSRF guard refuses loopback in every
// spelling, and no connection reaches the listener.
func TestFetchURLRefusesLocalListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })}
	go srv.Serve(ln)
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "ssrf")
	for _, u := range []string{
		"http://127.0.0.1:%d/", "http://localhost:%d/", "http://[::1]:%d/", "http://2130706433:%d/",
		"http://0x7f000001:%d/", "http://0177.0.0.1:%d/", "http://127.1:%d/", "http://[::ffff:127.0.0.1]:%d/",
	} {
		url := strings.Replace(u, "%d", strconv.Itoa(port), 1)
		// Unlisted domains ask first; allow, so the guard itself is tested.
		r := callApproving(t, d, s, "fetch_url", map[string]any{"url": url})
		if !r.IsError {
			t.Fatalf("%s was fetched: %s", url, clitest.Text(t, r))
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the local listener", n)
	}
}

// TestAskHumanThroughElicitation: a stateful client that supports MCP
// elicitation is asked mid-call, and its answer is the tool's result.
func TestAskHumanThroughElicitation(t *testing.T) {
	d := clitest.Start(t)
	asked := make(chan string, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "eliciting", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "use port 8080"}}, nil
		},
	})
	s, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := call(t, s, "ask_human", map[string]any{"question": "Which port?"})
	if r.IsError || clitest.Text(t, r) != "use port 8080" {
		t.Fatalf("answer: %v %s", r.IsError, clitest.Text(t, r))
	}
	if q := <-asked; q != "Which port?" {
		t.Fatalf("asked %q", q)
	}
	if n := len(d.Events("kind=approval.requested")); n != 0 {
		t.Fatalf("fell back to the card (%d requests)", n)
	}
}
