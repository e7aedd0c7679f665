package exposure

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

// Card is what the approvals page shows of a waiting card: what the
// desktop card shows to decide once (who asks, what for, why), and the
// hash a decision must carry.
type Card struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Agent     string    `json:"agent"`
	Session   string    `json:"session"`
	Tool      string    `json:"tool,omitempty"`
	Native    string    `json:"native,omitempty"`
	Argv      []string  `json:"argv,omitempty"`
	Paths     []string  `json:"paths,omitempty"`
	URL       string    `json:"url,omitempty"`
	Domain    string    `json:"domain,omitempty"`
	Port      int       `json:"port,omitempty"`
	Question  string    `json:"question,omitempty"`
	Changes   []string  `json:"changes,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	Reason    string    `json:"reason"`
	Risks     []string  `json:"risks,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
	// Hash binds a decision to this card as shown: a decision that
	// carries another is refused (410).
	Hash string `json:"hash"`
}

// cardOf is the page's view of r.
func cardOf(r approval.Request) Card {
	c := Card{
		ID: r.ID, Kind: string(r.Kind), Agent: r.Actor, Session: r.Session, Tool: r.Tool, Native: r.Native,
		Argv: r.Argv, Paths: r.Paths, URL: r.URL, Domain: r.Domain, Port: r.Port, Question: r.Question,
		Cwd: r.Cwd, Reason: r.Reason, ExpiresAt: r.ExpiresAt, Hash: CardHash(r),
	}
	for _, ch := range r.Changes {
		c.Changes = append(c.Changes, ch.Op+" "+ch.Path)
	}
	for _, rk := range r.Risks {
		c.Risks = append(c.Risks, rk.Detail)
	}
	return c
}

// CardHash is a hash of everything the card says, so any change to what
// the person saw makes an earlier decision stale.
func CardHash(r approval.Request) string {
	b, err := json.Marshal(r)
	if err != nil {
		// A Request always marshals; a hash of nothing would match no
		// decision, which is the safe way to fail.
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
