package httpgate

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// JSON answers with v as JSON (commands and paths as written: no HTML
// escaping). With its length, the answer is whole the moment it is sent:
// chunked, a client would wait for the last chunk, which follows only
// once the daemon's middleware is done with the request (it flushes every
// answer), and would drop its connection rather than reuse it if it
// stopped reading before that chunk.
func JSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		code = http.StatusInternalServerError
		b.Reset()
		_ = enc.Encode(map[string]string{"error": "Gatehouse could not encode its answer; see the daemon log."})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}
