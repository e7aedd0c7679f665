package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/randid"
)

// The SDK runs a tool call apart from the HTTP request that carried it
// (a stateful client may resume the stream), so a client that closes the
// stream, or a bridge that is killed, leaves its call running and its card
// waiting. Gatehouse watches each POST itself: the call ends, and its card
// is withdrawn, when the POST's connection does.

// postHeader carries the id a POST is watched under. Gatehouse sets it on
// every POST; a client's own value is replaced.
const postHeader = "X-Gatehouse-Post"

// errClientGone is the cause of a call whose client closed its request.
var errClientGone = errors.New("the client closed the request")

type postWatch struct {
	mu    sync.Mutex
	posts map[string]context.Context
}

// watchPosts registers each POST's request context for the calls it carries.
func (s *Server) watchPosts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		id := randid.New("", 12)
		r = r.Clone(r.Context())
		r.Header.Set(postHeader, id)
		s.posts.mu.Lock()
		s.posts.posts[id] = r.Context()
		s.posts.mu.Unlock()
		defer func() {
			s.posts.mu.Lock()
			delete(s.posts.posts, id)
			s.posts.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// withPost ends ctx when the POST that carried the call (named in its
// headers) ends before the call does. The returned stop must be called when
// the call is over.
func (s *Server) withPost(ctx context.Context, h http.Header) (context.Context, func()) {
	s.posts.mu.Lock()
	pc := s.posts.posts[h.Get(postHeader)]
	s.posts.mu.Unlock()
	if pc == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(pc, func() { cancel(errClientGone) })
	return ctx, func() { stop(); cancel(nil) }
}
