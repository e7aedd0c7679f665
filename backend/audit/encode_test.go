package audit

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/secrets"
)

// The reference is the path EventWithPayload replaces: marshal, redact the
// JSON, canonicalise.
func TestEventWithPayloadMatchesCanonicalMarshal(t *testing.T) {
	red := secrets.NewRedactor([]secrets.Value{{Name: "PW", Value: "hunter2"}, {Name: "KEY", Value: "sk-abcdefghijklmnopqrstuvwxyz012345"}})
	other := func(v any) ([]byte, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return red.JSON(b)
	}
	opts := PayloadOptions{String: red.String, Other: other}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		v := randObject(rng, 0)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if b, err = red.JSON(b); err != nil {
			t.Fatal(err)
		}
		want, wantErr := Canonicalize(b)
		e, err := EventWithPayload(Event{Kind: "x.y", Actor: ActorSystem}, v, opts)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("case %d: err %v, reference err %v\n%s", i, err, wantErr, b)
		}
		if err == nil && !bytes.Equal(e.Payload, want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, e.Payload, want)
		}
		if err == nil {
			// And Append accepts it as it is.
			p, err := prepare(e)
			if err != nil || !bytes.Equal(p.Payload, want) {
				t.Fatalf("case %d: prepare: %v", i, err)
			}
		}
	}
}

func TestEventWithPayloadRedactsKeysAndValues(t *testing.T) {
	red := secrets.NewRedactor([]secrets.Value{{Name: "PW", Value: "hunter2"}})
	e, err := EventWithPayload(Event{}, map[string]any{"pw hunter2": []any{"x hunter2", map[string]any{"a": "hunter2"}}, "n": []string{"hunter2"}}, PayloadOptions{String: red.String})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(e.Payload, []byte("hunter2")) {
		t.Fatalf("secret in %s", e.Payload)
	}
	if _, err := EventWithPayload(Event{}, map[string]any{"t": time.Second}, PayloadOptions{}); err == nil {
		t.Fatal("an unknown type without Other was accepted")
	}
}

type rec struct {
	A string  `json:"a"`
	B float64 `json:"b"`
}

var pieces = []string{"", "a", "hunter2", "sk-abcdefghijklmnopqrstuvwxyz012345", "\"", "\\", "\n", "\t", "\x01", "\x7f", "<>&", "é", "日本", "\u2028", "\xff", "\xc3", "\U0001F600", "/", " ", "ghp_", "Bearer x"}

func randString(rng *rand.Rand) string {
	var b []byte
	for range rng.IntN(5) {
		b = append(b, pieces[rng.IntN(len(pieces))]...)
	}
	return string(b)
}

var floats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e20, 1e21, 1e22, -1e21, 1e-6, 1e-7, 123456789.5, 1 << 53, 1<<53 + 1, 3.14159, 1e300, -2.5e-300, 100000000, 4096}

func randValue(rng *rand.Rand, depth int) any {
	n := 12
	if depth > 3 {
		n = 8 // leaves only
	}
	switch rng.IntN(n) {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return rng.IntN(1<<20) - 1<<19
	case 3:
		return int64(rng.Uint64())
	case 4:
		return floats[rng.IntN(len(floats))]
	case 5, 6:
		return randString(rng)
	case 7:
		return time.Duration(rng.IntN(1e9)) // other: named int
	case 8:
		return randObject(rng, depth+1)
	case 9:
		var a []any
		if rng.IntN(4) > 0 {
			a = []any{}
		}
		for range rng.IntN(4) {
			a = append(a, randValue(rng, depth+1))
		}
		return a
	case 10:
		var a []string
		for range rng.IntN(3) {
			a = append(a, randString(rng))
		}
		return a
	default:
		return []rec{{A: randString(rng), B: floats[rng.IntN(len(floats))]}}
	}
}

func randObject(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range rng.IntN(5) {
		m[randString(rng)] = randValue(rng, depth)
	}
	return m
}
