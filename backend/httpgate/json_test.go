package httpgate

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// An answer carries its length (whole once sent, never chunked) and the
// command as written.
func TestJSONAnswer(t *testing.T) {
	rec := httptest.NewRecorder()
	JSON(rec, http.StatusCreated, map[string]string{"command": "make a && b > out"})
	body := rec.Body.String()
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(body)) {
		t.Fatalf("Content-Length %q for a %d-byte body", got, len(body))
	}
	if !strings.Contains(body, "a && b > out") {
		t.Fatalf("body %q escapes the command", body)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil || got["command"] != "make a && b > out" {
		t.Fatalf("body %q: %v", body, err)
	}
}

// What cannot be encoded is a plain error, not half an answer.
func TestJSONUnencodable(t *testing.T) {
	rec := httptest.NewRecorder()
	JSON(rec, http.StatusOK, map[string]any{"f": func() {}})
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "could not encode") {
		t.Fatalf("status %d, body %q", rec.Code, rec.Body.String())
	}
}
