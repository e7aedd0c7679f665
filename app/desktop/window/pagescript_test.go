package window

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestPageScriptGoesIntoTheIndex(t *testing.T) {
	const index = `<!doctype html><html><head><title>Gatehouse</title></HEAD><body><div id="app"></div></body></html>`
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "script-src 'self'")
		w.Header().Set("Content-Length", strconv.Itoa(len(index)))
		if r.URL.Path != "/" {
			_, _ = io.WriteString(w, "other")
			return
		}
		_, _ = io.WriteString(w, index)
	})
	h := withPageScript(next)
	get := func(path string) *http.Response {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Result()
	}

	res := get("/")
	body, _ := io.ReadAll(res.Body)
	want := `<title>Gatehouse</title>` + string(pageScriptTag) + `</HEAD>`
	if !strings.Contains(string(body), want) {
		t.Fatalf("index: %s", body)
	}
	if res.Header.Get("Content-Length") != strconv.Itoa(len(body)) || res.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("index headers: %v", res.Header)
	}

	res = get(pageScriptPath)
	body, _ = io.ReadAll(res.Body)
	if string(body) != pageReportJS || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("script: %v %.40s", res.Header, body)
	}

	if body, _ := io.ReadAll(get("/assets/x.js").Body); string(body) != "other" {
		t.Fatalf("other path: %s", body)
	}
}

func TestPageScriptLeavesOtherPagesAlone(t *testing.T) {
	for _, page := range []string{"no head here", ""} {
		if got := string(withScriptTag([]byte(page))); got != page {
			t.Fatalf("%q became %q", page, got)
		}
	}
}
