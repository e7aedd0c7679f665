package secrets

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchInput is 1 MiB of build output, code and logs with a secret in
// roughly every 4 KiB.
func benchInput() []byte {
	lines := []string{
		"ok  \tgithub.com/example/project/internal/server\t0.123s\n",
		"func (s *Server) handle(w http.ResponseWriter, r *http.Request) error { return nil }\n",
		"2024-05-01T12:00:00Z INFO request served path=/api/v1/items status=200 dur=3ms\n",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\n",
		"    --- PASS: TestSomething/case_42 (0.00s)\n",
		"{\"id\":\"123e4567-e89b-12d3-a456-426614174000\",\"name\":\"example\",\"size\":1024}\n",
	}
	tokens := []string{ghp, awsKey, jwt, "value-of-DB_PASSWORD-123", openai, slackBot}
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(lines[i%len(lines)])
		if i%50 == 49 {
			fmt.Fprintf(&b, "leaked=%s\n", tokens[(i/50)%len(tokens)])
		}
	}
	return []byte(b.String()[:1<<20])
}

func benchRedactor() *Redactor {
	var vals []Value
	for i := range 30 { // a host environment with a few dozen secrets
		vals = append(vals, Value{Name: fmt.Sprintf("SECRET_%d", i), Value: fmt.Sprintf("host-secret-value-%02d-xyz", i)})
	}
	vals = append(vals, Value{Name: "DB_PASSWORD", Value: "value-of-DB_PASSWORD-123"})
	return NewRedactor(vals)
}

func BenchmarkRedactBytes(b *testing.B) {
	in, r := benchInput(), benchRedactor()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for range b.N {
		r.Bytes(in)
	}
}

func BenchmarkRedactWriter(b *testing.B) {
	in, r := benchInput(), benchRedactor()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for range b.N {
		w := r.NewWriter(io.Discard)
		for off := 0; off < len(in); off += 4096 {
			w.Write(in[off:min(off+4096, len(in))])
		}
		w.Close()
	}
}
