package egress

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// refusal is a connection the proxy turns away. msg is the one sentence
// the command is told (and the audit row keeps); err, if any, is detail
// for the log only.
type refusal struct {
	status int
	msg    string
	err    error
}

func (r *refusal) Error() string { return r.msg }

func refuse(status int, format string, a ...any) *refusal {
	return &refusal{status: status, msg: fmt.Sprintf(format, a...)}
}

// writeRefusal answers an HTTP request with r's status and sentence, in
// the body and in a header for clients that show neither status nor body.
func writeRefusal(w io.Writer, r *refusal) {
	msg := strings.ReplaceAll(r.msg, "\n", " ")
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Gatehouse-Refused: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		r.status, http.StatusText(r.status), headerSafe(msg), len(msg)+1, msg)
}

// headerSafe keeps a header value printable ASCII.
func headerSafe(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		} else {
			b.WriteByte('?')
		}
	}
	return b.String()
}
