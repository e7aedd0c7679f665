package exposure

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// exposure is one open exposure and its listener's handler.
type exposure struct {
	id          string
	tokenHash   [sha256.Size]byte
	opened      time.Time
	expires     time.Time
	listen      string
	path        string // /e/ID/: the cookie's scope
	url         string
	tls         bool
	fingerprint string
	tunnel      *tunnel
	srv         *http.Server
	timer       *time.Timer
	fails       *failures
	cards       Cards
	emit        func(ctx context.Context, kind, actor, session string, payload any)
	logger      *slog.Logger

	mu        sync.Mutex
	tokenUsed bool
	ended     bool
	devices   map[[sha256.Size]byte]string // cookie hash → user agent
	decisions int
}

func (x *exposure) info() Info {
	x.mu.Lock()
	defer x.mu.Unlock()
	i := Info{ID: x.id, Listen: x.listen, URL: x.url, TLS: x.tls, Fingerprint: x.fingerprint, Opened: x.opened, Expires: x.expires,
		Devices: len(x.devices), Decisions: x.decisions}
	if x.tunnel != nil {
		t := x.tunnel.info
		i.Tunnel = &t
	}
	return i
}

// end makes every later request fail, before the listener closes.
func (x *exposure) end() {
	x.mu.Lock()
	x.ended = true
	x.mu.Unlock()
}

// live: neither stopped nor past its expiry (the timer may lag).
func (x *exposure) live(now time.Time) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return !x.ended && now.Before(x.expires)
}

// cookieName differs per exposure: cookies ignore ports, so two
// exposures on one host would otherwise overwrite each other's.
func (x *exposure) cookieName() string { return "gatehouse_" + x.id }

// handler serves the approvals page, its assets and its decide API under
// /e/ID/, and nothing else: no /mcp, no control route, no token.
func (x *exposure) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+x.path+"{$}", x.page)
	mux.HandleFunc("GET "+x.path+"app.js", asset("app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET "+x.path+"app.css", asset("app.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET "+x.path+"cards", x.device(x.listCards))
	mux.HandleFunc("POST "+x.path+"cards/{card}", x.device(x.decide))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "an exposure serves only its approvals page")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if !x.live(time.Now()) {
			fail(w, http.StatusGone, "this exposure has ended; run gatehouse public start for a new one")
			return
		}
		if why := foreign(r); why != "" {
			fail(w, http.StatusForbidden, why)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		mux.ServeHTTP(w, r)
	})
}

// securityHeaders: the page is never framed, never cached, never sends a
// Referer (its first address carries the token), and runs only its own
// script.
func securityHeaders(h http.Header) {
	httpgate.SecurityHeaders(h, "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// foreign refuses requests another site's page makes: an Origin that is
// not this host, or a browser saying the request is cross-site (a plain
// navigation to the page is let through: it carries no cookie, and only
// the link's token opens anything).
func foreign(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return "requests from another web origin are refused"
		}
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" && !(r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate") {
		return "cross-site requests are refused"
	}
	return ""
}

func fail(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// page trades the link's token for a cookie (once), or serves the page
// to a device that holds one.
func (x *exposure) page(w http.ResponseWriter, r *http.Request) {
	if t := r.URL.Query().Get("t"); t != "" {
		x.trade(w, r, t)
		return
	}
	if _, ok := x.admit(w, r); !ok {
		return
	}
	serveAsset(w, "index.html", "text/html; charset=utf-8")
}

// trade swaps the token for a cookie the first time it is presented;
// later presentations (a replay, a second device) are refused. The
// redirect drops the token from the address bar and history.
func (x *exposure) trade(w http.ResponseWriter, r *http.Request, presented string) {
	now := time.Now()
	if x.fails.blocked(now) {
		fail(w, http.StatusTooManyRequests, "too many wrong attempts; wait a minute and try again")
		return
	}
	h := token.Hash(presented)
	x.mu.Lock()
	good := subtle.ConstantTimeCompare(h[:], x.tokenHash[:]) == 1
	used := x.tokenUsed
	var secret string
	var err error
	if good && !used {
		if secret, err = token.New(); err == nil {
			x.tokenUsed = true
			x.devices[token.Hash(secret)] = userAgent(r)
		}
	}
	x.mu.Unlock()
	switch {
	case !good:
		x.fails.fail(now)
		fail(w, http.StatusUnauthorized, "this link is not valid for this exposure")
		return
	case used:
		fail(w, http.StatusUnauthorized, "this link was already used on a device; run gatehouse public start for a new one")
		return
	case err != nil:
		fail(w, http.StatusInternalServerError, "could not start a session for this device")
		return
	}
	x.emit(r.Context(), "exposure.device", "human", "", map[string]any{"exposure": x.id, "device": userAgent(r)})
	http.SetCookie(w, &http.Cookie{
		Name: x.cookieName(), Value: secret, Path: x.path, Expires: x.expires, MaxAge: int(time.Until(x.expires).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: x.tls,
	})
	http.Redirect(w, r, x.path, http.StatusSeeOther)
}

// admit checks the device's cookie; it answers the request itself when
// the cookie is missing or wrong.
func (x *exposure) admit(w http.ResponseWriter, r *http.Request) (string, bool) {
	now := time.Now()
	if x.fails.blocked(now) {
		fail(w, http.StatusTooManyRequests, "too many wrong attempts; wait a minute and try again")
		return "", false
	}
	c, err := r.Cookie(x.cookieName())
	if err != nil || c.Value == "" {
		fail(w, http.StatusUnauthorized, "open the link Gatehouse showed when the exposure started")
		return "", false
	}
	h := token.Hash(c.Value)
	x.mu.Lock()
	ua, ok := x.devices[h]
	x.mu.Unlock()
	if !ok {
		x.fails.fail(now)
		fail(w, http.StatusUnauthorized, "this device's session is not valid for this exposure")
		return "", false
	}
	return ua, true
}

// device wraps a route that needs the device's cookie.
func (x *exposure) device(next func(w http.ResponseWriter, r *http.Request, ua string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ua, ok := x.admit(w, r); ok {
			next(w, r, ua)
		}
	}
}

func (x *exposure) listCards(w http.ResponseWriter, r *http.Request, _ string) {
	pending := x.cards.Pending()
	out := make([]Card, 0, len(pending))
	for _, p := range pending {
		out = append(out, cardOf(p))
	}
	writeJSON(w, http.StatusOK, map[string]any{"cards": out, "expires": x.expires})
}

type decideRequest struct {
	Decision string `json:"decision"`
	Hash     string `json:"hash"`
	Message  string `json:"message"`
}

// decide settles a card once, as the device saw it: the hash must match
// the card that waits now. A card already settled (by the desktop first,
// another device, a timeout) or withdrawn answers 410 and runs nothing;
// so does one decided on the computer a moment after the device (the
// broker holds the device's decision for that: the local decision wins).
func (x *exposure) decide(w http.ResponseWriter, r *http.Request, ua string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		fail(w, http.StatusRequestEntityTooLarge, "the request is too large")
		return
	}
	var req decideRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "send the decision as JSON: {\"decision\", \"hash\", \"message\"}")
		return
	}
	d := approval.Decision{Scope: approval.ScopeOnce, Message: strings.TrimSpace(req.Message), Exposure: x.id, Device: ua}
	switch req.Decision {
	case "allow":
		d.Allow = true
	case "deny":
	default:
		fail(w, http.StatusBadRequest, `decision must be "allow" or "deny"`)
		return
	}
	if len(d.Message) > 4096 {
		fail(w, http.StatusBadRequest, "the message is longer than 4096 characters")
		return
	}
	if req.Hash == "" {
		fail(w, http.StatusBadRequest, "send the card's hash as the page showed it")
		return
	}
	id := r.PathValue("card")
	if card, ok := x.cards.Lookup(id); ok {
		if card.Kind == approval.KindQuestion && d.Allow && d.Message == "" {
			fail(w, http.StatusBadRequest, "answer the question before sending")
			return
		}
		if CardHash(card) != req.Hash {
			fail(w, http.StatusGone, "this card is not the one you saw; reload and decide again")
			return
		}
	}
	_, err = x.cards.Decide(r.Context(), id, d)
	switch {
	case errors.Is(err, approval.ErrWithdrawn), errors.Is(err, approval.ErrSettled), errors.Is(err, approval.ErrDecidedLocally):
		fail(w, http.StatusGone, err.Error())
		return
	case errors.Is(err, approval.ErrNotFound):
		fail(w, http.StatusNotFound, "no card has that id")
		return
	case err != nil:
		x.logger.Error("exposure decision", "exposure", x.id, "err", err)
		fail(w, http.StatusInternalServerError, "the decision could not be recorded; decide on the desktop")
		return
	}
	x.mu.Lock()
	x.decisions++
	x.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"card": id, "decision": req.Decision})
}

// userAgent is the device as it names itself, bounded for the audit.
func userAgent(r *http.Request) string {
	ua := r.UserAgent()
	if len(ua) > 200 {
		ua = ua[:200]
	}
	if ua == "" {
		ua = "unknown device"
	}
	return ua
}

func writeJSON(w http.ResponseWriter, code int, v any) { httpgate.JSON(w, code, v) }
