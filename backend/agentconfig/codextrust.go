package agentconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"
)

// codexTrustHash is the hash Codex 0.171 stores as a hook's trusted_hash:
// SHA-256 over the compact, key-sorted JSON of the hook's normalized
// identity {event_name, matcher, hooks: [handler]}, where the handler has
// every default filled in (async false). Checked against the currentHash
// that `codex app-server`'s hooks/list reports, in the tests.
func codexTrustHash(eventLabel, matcher string, handler map[string]any) string {
	h := map[string]any{"async": false}
	for k, v := range handler {
		h[k] = v
	}
	id := map[string]any{"event_name": eventLabel, "hooks": []any{h}}
	if matcher != "" {
		id["matcher"] = matcher
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // serde_json escapes only what JSON requires
	_ = enc.Encode(id)       // encoding/json sorts map keys
	sum := sha256.Sum256(bytes.TrimRight(buf.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexEventLabel is Codex's snake_case name for a hook event
// (PreToolUse -> pre_tool_use), used in trust keys.
func codexEventLabel(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
