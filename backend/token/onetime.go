package token

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/randid"
)

// Login is the capability of a login link: it opens one route, which
// trades it, once, for a browser's control token.
const Login Kind = "login"

// OneTime holds login links' codes, by hash, in memory only: a link is
// for the next few minutes of one person, and a restarted daemon simply
// asks for a new one. Safe for concurrent use.
type OneTime struct {
	mu    sync.Mutex
	codes map[[sha256.Size]byte]oneTimeCode
}

type oneTimeCode struct {
	id      string
	expires time.Time
}

// Add registers a fresh code valid until expires and returns its id.
func (o *OneTime) Add(code string, expires time.Time) string {
	id := randid.New("l_", 6)
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.codes == nil {
		o.codes = map[[sha256.Size]byte]oneTimeCode{}
	}
	for h, c := range o.codes {
		if !now.Before(c.expires) {
			delete(o.codes, h)
		}
	}
	o.codes[Hash(code)] = oneTimeCode{id: id, expires: expires}
	return id
}

// Match finds an unused, unexpired code. The lookup is by SHA-256 of what
// was presented, so its timing says nothing about any stored code.
func (o *OneTime) Match(code string) (id string, ok bool) {
	if o == nil {
		return "", false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c, found := o.codes[Hash(code)]
	if !found || !time.Now().Before(c.expires) {
		return "", false
	}
	return c.id, true
}

// Take uses up the code with this id and returns when it would have
// expired. Of two requests racing with one link, exactly one gets ok.
func (o *OneTime) Take(id string) (expires time.Time, ok bool) {
	if o == nil {
		return time.Time{}, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for h, c := range o.codes {
		if c.id == id {
			delete(o.codes, h)
			return c.expires, time.Now().Before(c.expires)
		}
	}
	return time.Time{}, false
}
