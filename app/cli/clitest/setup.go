package clitest

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// ConfigDir is where a daemon and CLI started for workspace ws read
// config.toml and policy.toml: Env points XDG_CONFIG_HOME beside ws, so
// each test's configuration is its own.
func ConfigDir(ws string) string {
	return filepath.Join(filepath.Dir(ws), "config", "gatehouse")
}

// WriteConfig writes name (config.toml, policy.toml) with content into
// ConfigDir(ws), before the daemon starts.
func WriteConfig(t testing.TB, ws, name, content string) {
	t.Helper()
	dir := ConfigDir(ws)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Terminate sends p SIGTERM and waits up to timeout for exited to close;
// past that it kills p, waits for it, and says false.
func Terminate(p *os.Process, exited <-chan struct{}, timeout time.Duration) bool {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return true
	case <-time.After(timeout):
		p.Kill()
		<-exited
		return false
	}
}

// WaitServing waits until the daemon whose data dir is data serves
// /healthz at the address it writes to DATA/addr, and returns that
// address. what names the process started for the failure, which shows
// log, its output so far; exited closes when the process ends.
func WaitServing(t testing.TB, data string, exited <-chan struct{}, timeout time.Duration, what string, log fmt.Stringer) string {
	t.Helper()
	var addr string
	waitfor.ForState(t, timeout, what+" to serve", func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("%s exited during start:\n%s", what, log)
		default:
		}
		b, err := os.ReadFile(filepath.Join(data, "addr"))
		if err != nil || len(bytes.TrimSpace(b)) == 0 {
			return false, "no address in DATA/addr; log:\n" + log.String()
		}
		addr = strings.TrimSpace(string(b))
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false, err.Error() + "; log:\n" + log.String()
		}
		resp.Body.Close()
		return true, ""
	})
	return addr
}
