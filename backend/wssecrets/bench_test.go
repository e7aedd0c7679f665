package wssecrets

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/bench/medians"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// BenchmarkCapture100MiBWorkspaceRedaction is BenchmarkCapture100MiB
// (sandbox/proof) with the redaction a command's result gets: 100 MiB
// of log-like text through the capture path (1 MiB kept), then the kept
// output redacted as run_command does, by the daemon's redactor alone
// and by the same with a session's 20 workspace values, alternated. The
// target: the workspace values cost at most 5% (x-workspace ≤ 1.05).
func BenchmarkCapture100MiBWorkspaceRedaction(b *testing.B) {
	base := []secrets.Value{{Name: "GH_TOKEN", Value: "ghp_configuredTokenValue0123456789"}}
	plain := secrets.NewLive(base, secrets.HostSecrets(os.Environ()))
	withWS := secrets.NewLive(base, secrets.HostSecrets(os.Environ()))
	var env []byte
	for i := range 20 {
		env = fmt.Appendf(env, "SERVICE_%d_API_KEY=ws-secret-%02d-%016x\n", i, i, uint64(i)*0x9e3779b97f4a7c15)
	}
	withWS.Set(Parse(".env", env))
	if n := len(Parse(".env", env)); n != 20 {
		b.Fatalf("%d workspace values, want 20", n)
	}
	argv := []string{"sh", "-c", "yes 'GET /api/v1/items?id=12345&user=alice 200 OK 0.003s session=abcdef0123456789' | head -c 104857600"}
	var redBare, redWS []time.Duration // the redaction step alone
	capture := func(redact func(string) string, red *[]time.Duration) time.Duration {
		start := time.Now()
		c := sandbox.NewCapture(sandbox.DefaultOutputBytes, nil)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout = c
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		r0 := time.Now()
		_ = redact(string(c.Bytes()))
		*red = append(*red, time.Since(r0))
		return time.Since(start)
	}
	var bare, ws []time.Duration
	b.SetBytes(100 << 20)
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			bare = append(bare, capture(plain.String, &redBare))
			ws = append(ws, capture(withWS.String, &redWS))
		} else {
			ws = append(ws, capture(withWS.String, &redWS))
			bare = append(bare, capture(plain.String, &redBare))
		}
	}
	medians.Report(b, bare, ws, medians.Units{Base: "ms-configured", Run: "ms-workspace", Ratio: "x-workspace"})
	medians.Report(b, redBare, redWS, medians.Units{Base: "ms-redact-step-configured", Run: "ms-redact-step-workspace"})
}
