package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchPolicy is the builtins plus 50 user rules of the kinds people write.
func benchPolicy(b *testing.B) (*Policy, Session) {
	b.Helper()
	var sb strings.Builder
	sb.WriteString("# benchmark policy\n")
	for i := range 50 {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&sb, "[[rule]]\nid = \"cmd-%d\"\naction = \"allow\"\nbinary = \"/usr/bin/tool%d\"\nargs = [\"sub%d\", \"run\"]\n\n", i, i, i)
		case 1:
			fmt.Fprintf(&sb, "[[rule]]\nid = \"deny-%d\"\naction = \"deny\"\nbinary = \"/opt/t%d/*\"\n\n", i, i)
		case 2:
			fmt.Fprintf(&sb, "[[rule]]\nid = \"read-%d\"\naction = \"allow\"\ntool = \"read_file\"\npaths = [\"~/data%d/**/*.csv\", \"/srv/d%d/**\"]\n\n", i, i, i)
		case 3:
			fmt.Fprintf(&sb, "[[rule]]\nid = \"web-%d\"\naction = \"allow\"\ndomains = [\"docs%d.example.com\", \"*.cdn%d.example.net\"]\n\n", i, i, i)
		case 4:
			fmt.Fprintf(&sb, "[[rule]]\nid = \"ask-%d\"\naction = \"ask\"\ntool = \"write_file\"\npaths = [\"**/gen%d/**\"]\n\n", i, i)
		}
	}
	d := b.TempDir()
	uf := filepath.Join(d, "policy.toml")
	write(b, uf, sb.String())
	p, err := Load(uf, nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(p.user) != 50 {
		b.Fatalf("%d rules", len(p.user))
	}
	return p, Session{Mode: ModeAsk, Workspaces: []string{"/home/u/proj"}, Home: "/home/u"}
}

func BenchmarkDecide(b *testing.B) {
	p, s := benchPolicy(b)
	ws := "/home/u/proj"
	calls := []Action{
		{Tool: ToolReadFile, Paths: []string{ws + "/internal/server/handler.go"}},
		{Tool: ToolWriteFile, Paths: []string{ws + "/internal/gen7/x.go"}},
		{Tool: ToolRunCommand, Binary: "/usr/bin/git", Argv: []string{"git", "status", "--short"}, Cwd: ws},
		{Tool: ToolRunCommand, Binary: "/usr/local/go/bin/go", Argv: []string{"go", "test", "./backend/..."}, Cwd: ws},
		{Tool: ToolRunCommand, Binary: "/usr/bin/tool20", Argv: []string{"tool20", "sub20", "run", "-v"}, Cwd: ws},
		{Tool: ToolRunCommand, Binary: "/usr/bin/bash", Argv: []string{"bash", "-c", "echo hi"}, Cwd: ws},
		{Tool: ToolRunCommand, Binary: "/usr/bin/git", Argv: []string{"git", "push", "--force", "origin", "main"}, Cwd: ws},
		{Tool: ToolReadFile, Paths: []string{"/home/u/data12/2024/q1/sales.csv"}},
		{Tool: ToolReadFile, Paths: []string{ws + "/.env"}},
		{Tool: ToolFetchURL, URL: "https://a.cdn33.example.net/lib.js"},
		{Tool: ToolFetchURL, URL: "https://unlisted.example.org/page"},
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		d := p.Decide(s, calls[i%len(calls)])
		lat = append(lat, time.Since(t0))
		if d.Reason == "" {
			b.Fatal("no reason")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}
