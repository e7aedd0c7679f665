package secrets

import "bytes"

// Token-shape labels used in [REDACTED:kind].
const (
	KindAWSAccessKey = "aws_access_key"
	KindGitHub       = "github_token"
	KindGitLab       = "gitlab_token"
	KindSlack        = "slack_token"
	KindAPIKey       = "api_key"
	KindPrivateKey   = "private_key"
	KindJWT          = "jwt"
)

// Character classes, as bit flags in one table so the scan loop stays cheap.
const (
	cUpper = 1 << iota
	cLower
	cDigit
	cDash
	cUnder
	cAnchor // can start a token shape
)

var class [256]uint8

func init() {
	for c := 'A'; c <= 'Z'; c++ {
		class[c] |= cUpper
	}
	for c := 'a'; c <= 'z'; c++ {
		class[c] |= cLower
	}
	for c := '0'; c <= '9'; c++ {
		class[c] |= cDigit
	}
	class['-'] |= cDash
	class['_'] |= cUnder
	for _, c := range "Agxse-" {
		class[c] |= cAnchor
	}
}

const (
	alnum  = cUpper | cLower | cDigit
	b64url = alnum | cDash | cUnder
)

// run returns the end of the run of bytes in mask starting at i.
func run(b []byte, i int, mask uint8) int {
	for i < len(b) && class[b[i]]&mask != 0 {
		i++
	}
	return i
}

// shapeResult is what a shape matcher found at a position.
type shapeResult struct {
	end     int
	kind    string
	ok      bool // a complete token [start,end)
	pending bool // could still become a token if more bytes follow
}

// matchShape tries every token shape at b[i]; prev is the byte before i, or
// -1. atEOF says no more bytes will follow b.
func matchShape(b []byte, i int, prev int, atEOF bool) shapeResult {
	boundary := prev < 0 || class[byte(prev)]&alnum == 0
	var none shapeResult
	// tail decides a run-based token: a run reaching the end of the buffer
	// may continue in the next chunk.
	tail := func(end, minLen, start int, kind string, mask uint8) shapeResult {
		if end == len(b) && !atEOF {
			return shapeResult{pending: true}
		}
		if end-start < minLen {
			return shapeResult{}
		}
		if end < len(b) && class[b[end]]&mask != 0 {
			return shapeResult{}
		}
		return shapeResult{end: end, kind: kind, ok: true}
	}
	// prefix checks a literal prefix, reporting pending when the buffer ends
	// inside it.
	prefix := func(p string) (matched, pending bool) {
		n := min(len(p), len(b)-i)
		if string(b[i:i+n]) != p[:n] {
			return false, false
		}
		if n < len(p) {
			return false, !atEOF
		}
		return true, false
	}
	switch b[i] {
	case 'A':
		if !boundary {
			return none
		}
		for _, p := range [...]string{"AKIA", "ASIA"} {
			if m, pend := prefix(p); pend {
				return shapeResult{pending: true}
			} else if m {
				end := run(b, i+4, cUpper|cDigit)
				r := tail(end, 20, i, KindAWSAccessKey, alnum)
				if r.ok && end-i != 20 {
					return shapeResult{}
				}
				return r
			}
		}
	case 'g':
		if !boundary {
			return none
		}
		if m, pend := prefix("github_pat_"); pend {
			return shapeResult{pending: true}
		} else if m {
			return tail(run(b, i+11, alnum|cUnder), 11+22, i, KindGitHub, alnum|cUnder)
		}
		if m, pend := prefix("glpat-"); pend {
			return shapeResult{pending: true}
		} else if m {
			return tail(run(b, i+6, b64url), 6+20, i, KindGitLab, b64url)
		}
		if len(b)-i < 4 {
			if !atEOF && bytes.HasPrefix([]byte("gh"), b[i:min(len(b), i+2)]) {
				return shapeResult{pending: true}
			}
			return none
		}
		if b[i+1] == 'h' && bytes.IndexByte([]byte("pousr"), b[i+2]) >= 0 && b[i+3] == '_' {
			return tail(run(b, i+4, alnum), 4+30, i, KindGitHub, alnum|cUnder)
		}
	case 'x':
		if !boundary {
			return none
		}
		if m, pend := prefix("xapp-"); pend {
			return shapeResult{pending: true}
		} else if m {
			return tail(run(b, i+5, alnum|cDash), 5+10, i, KindSlack, alnum|cDash)
		}
		if len(b)-i < 5 {
			if !atEOF && bytes.HasPrefix([]byte("xox"), b[i:min(len(b), i+3)]) {
				return shapeResult{pending: true}
			}
			return none
		}
		if b[i+1] == 'o' && b[i+2] == 'x' && bytes.IndexByte([]byte("abpres"), b[i+3]) >= 0 && b[i+4] == '-' {
			return tail(run(b, i+5, alnum|cDash), 5+10, i, KindSlack, alnum|cDash)
		}
	case 's':
		if !boundary {
			return none
		}
		if m, pend := prefix("sk-"); pend {
			return shapeResult{pending: true}
		} else if m {
			end := run(b, i+3, b64url)
			r := tail(end, 3+20, i, KindAPIKey, b64url)
			if r.ok && !mixed(b[i+3:end]) {
				return shapeResult{}
			}
			return r
		}
	case 'e':
		if prev >= 0 && class[byte(prev)]&b64url != 0 {
			return none
		}
		return matchJWT(b, i, atEOF)
	case '-':
		return matchPEM(b, i, atEOF)
	}
	return none
}

// mixed reports upper, lower and digit all present: real API keys are random
// and have all three, hyphenated-words-like-this do not.
func mixed(s []byte) bool {
	var seen uint8
	for _, c := range s {
		seen |= class[c]
	}
	return seen&cUpper != 0 && seen&cLower != 0 && seen&cDigit != 0
}

// matchJWT matches header.payload.signature where header and payload are
// base64url JSON objects (so both start with eyJ).
func matchJWT(b []byte, i int, atEOF bool) shapeResult {
	pos := i
	for part := 0; part < 3; part++ {
		if part < 2 {
			need := "eyJ"
			n := min(3, len(b)-pos)
			if string(b[pos:pos+n]) != need[:n] {
				return shapeResult{}
			}
			if n < 3 {
				if atEOF {
					return shapeResult{}
				}
				return shapeResult{pending: true}
			}
		}
		end := run(b, pos, b64url)
		if end == len(b) && !atEOF {
			return shapeResult{pending: true}
		}
		if part < 2 {
			if end-pos < 10 || end >= len(b) || b[end] != '.' {
				return shapeResult{}
			}
			pos = end + 1
			continue
		}
		return shapeResult{end: end, kind: KindJWT, ok: true}
	}
	return shapeResult{}
}

var (
	pemBegin = []byte("-----BEGIN ")
	pemEnd   = []byte("-----END ")
	pemDash  = []byte("-----")
)

// matchPEM matches a -----BEGIN …PRIVATE KEY…----- block through its END
// line. Without an END line it is pending, or at EOF redacted to the end
// (fail closed: a truncated key is still a key).
func matchPEM(b []byte, i int, atEOF bool) shapeResult {
	n := min(len(pemBegin), len(b)-i)
	if !bytes.Equal(b[i:i+n], pemBegin[:n]) {
		return shapeResult{}
	}
	if n < len(pemBegin) {
		if atEOF {
			return shapeResult{}
		}
		return shapeResult{pending: true}
	}
	labelStart := i + len(pemBegin)
	rest := b[labelStart:min(len(b), labelStart+80)]
	close := bytes.Index(rest, pemDash)
	if close < 0 {
		if !atEOF && len(rest) < 80 && bytes.IndexByte(rest, '\n') < 0 {
			return shapeResult{pending: true}
		}
		return shapeResult{}
	}
	label := rest[:close]
	if !bytes.Contains(label, []byte("PRIVATE KEY")) {
		return shapeResult{}
	}
	after := labelStart + close + len(pemDash)
	endLine := append(append(append([]byte{}, pemEnd...), label...), pemDash...)
	if j := bytes.Index(b[after:], endLine); j >= 0 {
		return shapeResult{end: after + j + len(endLine), kind: KindPrivateKey, ok: true}
	}
	if atEOF {
		return shapeResult{end: len(b), kind: KindPrivateKey, ok: true}
	}
	return shapeResult{pending: true}
}
