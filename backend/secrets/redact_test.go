package secrets

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// Fake tokens with the real shapes. None of them is a live credential.
var (
	awsKey    = "AKIA" + "Z7Q4EXAMPLE2H5KD"
	awsSTS    = "ASIA" + "Y2W3EXAMPLEQRSTU"
	ghp       = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	ghs       = "ghs_" + "0123456789abcdefABCDEF0123456789abcd"
	ghPAT     = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab"
	glpat     = "glpat-" + "xYz12_AbC-34dEf56GhI7"
	slackBot  = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	slackApp  = "xapp-" + "1-A0123456789-0123456789012-abcdef"
	openai    = "sk-" + "proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
	anthropic = "sk-" + "ant-api03-Xy7Zq2Wv9Tu4Sr1Po6Nm3Lk8Ji5Hg0Fe-AbCdEf"
	jwt       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pemKey    = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2c3d4e5f6\nZm9vYmFyYmF6cXV4\n-----END RSA PRIVATE KEY-----"
	sshKey    = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
)

func TestTokenShapes(t *testing.T) {
	r := NewRedactor()
	cases := []struct{ name, in, want string }{
		{"aws access key", "key=" + awsKey + "\n", "key=[REDACTED:aws_access_key]\n"},
		{"aws sts key", `"` + awsSTS + `"`, `"[REDACTED:aws_access_key]"`},
		{"github classic", "token " + ghp, "token [REDACTED:github_token]"},
		{"github server", ghs + ".", "[REDACTED:github_token]."},
		{"github fine-grained", "(" + ghPAT + ")", "([REDACTED:github_token])"},
		{"gitlab", "PRIVATE-TOKEN: " + glpat, "PRIVATE-TOKEN: [REDACTED:gitlab_token]"},
		{"slack bot", slackBot, "[REDACTED:slack_token]"},
		{"slack app", "x " + slackApp + " y", "x [REDACTED:slack_token] y"},
		{"openai project", "OPENAI=" + openai, "OPENAI=[REDACTED:api_key]"},
		{"anthropic", anthropic, "[REDACTED:api_key]"},
		{"jwt", "Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED:jwt]"},
		{"pem", "before\n" + pemKey + "\nafter", "before\n[REDACTED:private_key]\nafter"},
		{"openssh", sshKey, "[REDACTED:private_key]"},
		{"truncated pem fails closed", "x " + pemKey[:60], "x [REDACTED:private_key]"},
		{"two tokens", ghp + " and " + awsKey, "[REDACTED:github_token] and [REDACTED:aws_access_key]"},
	}
	for _, c := range cases {
		if got := r.String(c.in); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestNoFalsePositives(t *testing.T) {
	r := NewRedactor()
	texts := []string{
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: A <a@b.c>",
		"sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"id 123e4567-e89b-12d3-a456-426614174000",
		"import sklearn; x = 'sk-learn-is-a-python-library-name'",
		"sk-short",
		"AKIAshort and xAKIAZ7Q4EXAMPLE2H5KD and AKIAZ7Q4EXAMPLE2H5KDX",
		"ghp_tooShort gh_ ghx_0123456789abcdef0123456789abcdef0123",
		"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"eyJ alone, eyJhbGciOi.short, and notAeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.x",
		"func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) { secret := os.Getenv(\"X\") }",
		"xoxb is a prefix; xox- no; xapp-short",
		"glpat-short",
		strings.Repeat("a1B2", 30),
	}
	for _, s := range texts {
		if got := r.String(s); got != s {
			t.Errorf("changed ordinary text:\n  in %q\n out %q", s, got)
		}
	}
}

func TestExactValues(t *testing.T) {
	r := NewRedactor(
		[]Value{{Name: "GH_TOKEN", Value: "plain-token-value-1"}, {Name: "TINY", Value: "abc"}},
		[]Value{{Name: "DB_PASSWORD", Value: "hunter2hunter2"}, {Name: "DUP", Value: "hunter2hunter2"}},
		[]Value{{Name: "LONG", Value: "hunter2hunter2-and-more"}},
	)
	cases := []struct{ in, want string }{
		{"x plain-token-value-1 y", "x [REDACTED:GH_TOKEN] y"},
		{"plain-token-value-1plain-token-value-1", "[REDACTED:GH_TOKEN][REDACTED:GH_TOKEN]"},
		{"pw=hunter2hunter2;", "pw=[REDACTED:DB_PASSWORD];"},
		{"hunter2hunter2-and-more", "[REDACTED:LONG]"},
		{"abc is too short to redact", "abc is too short to redact"},
	}
	for _, c := range cases {
		if got := r.String(c.in); got != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJSONStaysValid(t *testing.T) {
	r := NewRedactor([]Value{{Name: "API_SECRET", Value: `q"uo\te/d<&>`}, {Name: "GH_TOKEN", Value: "plain-token-value-1"}})
	doc := map[string]any{
		"stdout":  "token: " + ghp + "\nok",
		"nested":  []any{map[string]any{"k": "Bearer " + jwt}, 42, true, nil, 1.5e10},
		"quoted":  `value q"uo\te/d<&> end`,
		"exact":   "plain-token-value-1",
		awsKey:    "secret as a key",
		"html":    "<b>&amp;</b>",
		"unicode": "héllo ✓",
	}
	in, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	// An escaped form of a token must be found too.
	in = bytes.Replace(in, []byte(`"exact"`), []byte(`"esc":"\u0067hp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8","exact"`), 1)
	out, err := r.JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Fatalf("invalid JSON: %s", out)
	}
	for _, leak := range []string{ghp, jwt, awsKey, "plain-token-value-1", `uo\\te`, "a1B2c3D4e5F6g7H8i9J0"} {
		if bytes.Contains(out, []byte(leak)) {
			t.Errorf("output still contains %q: %s", leak, out)
		}
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"stdout":                    "token: [REDACTED:github_token]\nok",
		"quoted":                    "value [REDACTED:API_SECRET] end",
		"exact":                     "[REDACTED:GH_TOKEN]",
		"esc":                       "[REDACTED:github_token]",
		"[REDACTED:aws_access_key]": "secret as a key",
		"html":                      "<b>&amp;</b>",
		"unicode":                   "héllo ✓",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if s := got["nested"].([]any)[0].(map[string]any)["k"]; s != "Bearer [REDACTED:jwt]" {
		t.Errorf("nested = %q", s)
	}
	clean := []byte(`{"a":[1,2,{"b":"nothing here"}],"c":"\n"}`)
	if out, _ := r.JSON(clean); !bytes.Equal(out, clean) {
		t.Errorf("clean JSON changed: %s", out)
	}
	if _, err := r.JSON([]byte(`{"a":`)); err != ErrNotJSON {
		t.Errorf("invalid JSON: %v", err)
	}
}

// mixedSample is ordinary output with secrets of every kind inside.
func mixedSample() (string, []string) {
	secretsIn := []string{ghp, awsKey, jwt, pemKey, glpat, slackBot, openai, "plain-token-value-1", ghPAT, sshKey, anthropic}
	var b strings.Builder
	for i, s := range secretsIn {
		b.WriteString("line of ordinary output 3f786850e387550fdab836ed7e6dc881de23001b\n")
		b.WriteString("value=")
		b.WriteString(s)
		if i%2 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString(" trailing words\n")
		}
	}
	return b.String(), secretsIn
}

func TestWriterChunkBoundaries(t *testing.T) {
	r := NewRedactor([]Value{{Name: "GH_TOKEN", Value: "plain-token-value-1"}})
	in, secretsIn := mixedSample()
	want := r.String(in)
	for _, s := range secretsIn {
		if strings.Contains(want, s) {
			t.Fatalf("one-shot redaction leaked %q", s)
		}
	}
	check := func(name string, chunks []string) {
		t.Helper()
		var out bytes.Buffer
		w := r.NewWriter(&out)
		for _, c := range chunks {
			if n, err := w.Write([]byte(c)); err != nil || n != len(c) {
				t.Fatalf("%s: write %d, %v", name, n, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("%s: streamed output differs\n got %q\nwant %q", name, out.String(), want)
		}
	}
	// Every two-way split, so each secret is cut at every position.
	for i := 0; i <= len(in); i++ {
		check("split", []string{in[:i], in[i:]})
	}
	// Byte at a time, and random chunkings.
	var one []string
	for i := range len(in) {
		one = append(one, in[i:i+1])
	}
	check("bytewise", one)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var chunks []string
		for rest := in; rest != ""; {
			n := min(len(rest), 1+rng.IntN(40))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		check("random", chunks)
	}
}

func TestWriterPassesTextThrough(t *testing.T) {
	r := NewRedactor()
	var out bytes.Buffer
	w := r.NewWriter(&out)
	w.Write([]byte("hello world, nothing to see\n"))
	// Plain text is not held back when there is no exact value to wait for.
	if out.String() != "hello world, nothing to see\n" {
		t.Fatalf("held back %q", out.String())
	}
	w.Write([]byte("partial gh"))
	w.Close()
	if out.String() != "hello world, nothing to see\npartial gh" {
		t.Fatalf("got %q", out.String())
	}
}

// TestWriterHoldsOnlyWhatMayBeASecret: with known values, a stream holds
// back only a tail that begins one, so a command's last line is not kept
// from the agent until the command ends.
func TestWriterHoldsOnlyWhatMayBeASecret(t *testing.T) {
	r := NewRedactor([]Value{{Name: "DB_PASSWORD", Value: "hunter2-horse-battery"}})
	var out bytes.Buffer
	w := r.NewWriter(&out)
	steps := []struct{ write, shown string }{
		{"build ok\n", "build ok\n"},
		{"pw=hunter2-ho", "build ok\npw="},
		{"rse-battery done\n", "build ok\npw=[REDACTED:DB_PASSWORD] done\n"},
		{"hunt", "build ok\npw=[REDACTED:DB_PASSWORD] done\n"},
		{"ing season\n", "build ok\npw=[REDACTED:DB_PASSWORD] done\nhunting season\n"},
		{"h", "build ok\npw=[REDACTED:DB_PASSWORD] done\nhunting season\n"},
	}
	for _, s := range steps {
		w.Write([]byte(s.write))
		if out.String() != s.shown {
			t.Fatalf("after %q: shown %q, want %q", s.write, out.String(), s.shown)
		}
	}
	w.Close()
	if !strings.HasSuffix(out.String(), "season\nh") {
		t.Fatalf("close: %q", out.String())
	}
}

func TestWriterBoundsItsBuffer(t *testing.T) {
	r := NewRedactor()
	var out bytes.Buffer
	w := r.NewWriter(&out)
	// An endless JWT-looking run must not be held forever.
	w.Write([]byte("eyJ"))
	chunk := bytes.Repeat([]byte("A"), 64<<10)
	for range 8 {
		w.Write(chunk)
	}
	if out.Len() == 0 {
		t.Fatal("nothing flushed after 512 KiB of one run")
	}
	w.Close()
}
