package hookserver

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// TestInputsTake: a command's input is fed by one post, from the agent
// token that ran it, while the command runs.
func TestInputsTake(t *testing.T) {
	var in inputs
	key, _, end := in.open("tok-a")
	if _, ok := in.take(key, "tok-b"); ok {
		t.Error("another agent's token fed the command")
	}
	if _, ok := in.take("i-unknown", "tok-a"); ok {
		t.Error("an unknown key was taken")
	}
	if _, ok := in.take(key, "tok-a"); !ok {
		t.Fatal("the agent's own post was refused")
	}
	if _, ok := in.take(key, "tok-a"); ok {
		t.Error("a second post fed the same command")
	}
	end()
	key2, _, end2 := in.open("tok-a")
	end2()
	if _, ok := in.take(key2, "tok-a"); ok {
		t.Error("an ended command's input was taken")
	}
}

// TestExecInputFeedsAsItComes: what the agent types reaches the command
// as it comes, not at the post's end; and when the command ends while the
// agent's terminal stays open, the post is answered at once.
func TestExecInputFeedsAsItComes(t *testing.T) {
	s := &Server{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	key, stdin, end := s.inputs.open("")
	srv := httptest.NewServer(http.HandlerFunc(s.serveExecInput))
	t.Cleanup(srv.Close)

	body, typing := io.Pipe()
	req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(hookwire.InputHeader, key)
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			close(answered)
			return
		}
		answered <- resp
	}()
	go func() { _, _ = io.WriteString(typing, "first line\n") }()
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil || line != "first line\n" {
		t.Fatalf("the command read %q, %v", line, err)
	}
	end() // the command exits; the agent types nothing more
	select {
	case resp := <-answered:
		if resp == nil || resp.StatusCode != http.StatusNoContent {
			t.Errorf("answer %v", resp)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the post was not answered when the command ended")
	}
	typing.Close()
}
