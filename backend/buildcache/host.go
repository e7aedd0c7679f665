package buildcache

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Host is the person's own caches and Go settings, found once at start.
// The sandbox reads the caches, never writes them.
type Host struct {
	// GoDownload is the host's Go module download cache
	// (GOMODCACHE/cache/download), served to the sandbox's go as its
	// first GOPROXY: a file:// proxy is how Go takes a read-only module
	// cache, since GOMODCACHE itself cannot be layered.
	GoDownload string
	// GoEnv are the person's Go settings (`go env`) the sandbox keeps:
	// their proxy after ours, private module patterns, toolchain choice.
	GoEnv map[string]string
	// CargoRegistry and NpmCache are linked into each root (seed.go):
	// neither tool can read a second cache.
	CargoRegistry string
	NpmCache      string
}

// goSettings are the `go env` values carried into the sandbox.
var goSettings = []string{"GOPROXY", "GOFLAGS", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOINSECURE", "GOTOOLCHAIN"}

// FindHost looks for the person's caches: Go's through the go binary
// they run (goBin, "" when none), the others where their tools keep
// them. Anything inside a secret place is left out.
func FindHost(ctx context.Context, goBin, home string, getenv func(string) string) Host {
	var h Host
	ok := func(p string) string {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || sandbox.SecretInside(real, home) != "" {
			return ""
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			return ""
		}
		return real
	}
	if goBin != "" {
		if env, err := goEnv(ctx, goBin); err == nil {
			if mc := env["GOMODCACHE"]; mc != "" {
				h.GoDownload = ok(filepath.Join(mc, "cache", "download"))
			}
			h.GoEnv = map[string]string{}
			for _, k := range goSettings {
				if v := env[k]; v != "" {
					h.GoEnv[k] = v
				}
			}
		}
	}
	cargo := getenv("CARGO_HOME")
	if cargo == "" {
		cargo = filepath.Join(home, ".cargo")
	}
	h.CargoRegistry = ok(filepath.Join(cargo, "registry"))
	npm := getenv("npm_config_cache")
	if npm == "" {
		npm = filepath.Join(home, ".npm")
	}
	h.NpmCache = ok(filepath.Join(npm, "_cacache"))
	return h
}

// goEnv asks the person's go for its settings, as they would see them.
func goEnv(ctx context.Context, goBin string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, goBin, append([]string{"env", "-json", "GOMODCACHE"}, goSettings...)...).Output()
	if err != nil {
		return nil, err
	}
	var env map[string]string
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, err
	}
	return env, nil
}

// goEnv is the sandbox's Go settings: the host's download cache first,
// then the person's own proxies (less any that carry credentials).
func (h Host) goEnv() []string {
	var out []string
	for _, k := range goSettings {
		if v := h.GoEnv[k]; v != "" && k != "GOPROXY" {
			out = append(out, k+"="+v)
		}
	}
	var proxies []string
	if h.GoDownload != "" {
		proxies = append(proxies, "file://"+filepath.ToSlash(h.GoDownload))
	}
	switch p := h.GoEnv["GOPROXY"]; {
	case p == "" || (p == "off" && proxies != nil):
	case strings.Contains(p, "@"):
		if rest := withoutCredentials(p); rest != "" {
			proxies = append(proxies, rest)
		}
	default:
		proxies = append(proxies, p)
	}
	if len(proxies) > 0 {
		// "|" goes on after any error: a module missing from the host's
		// cache goes on to the person's own proxies, as they wrote them.
		out = append(out, "GOPROXY="+strings.Join(proxies, "|"))
	}
	return out
}

// withoutCredentials drops GOPROXY entries with a user:password part,
// which must not reach a sandbox.
func withoutCredentials(list string) string {
	var out []string
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == '|' }) {
		if !strings.Contains(f, "@") {
			out = append(out, f)
		}
	}
	return strings.Join(out, ",")
}

// readOnly are the host caches a sandbox must see to use them.
func (h Host) readOnly() []string {
	var out []string
	for _, p := range []string{h.GoDownload, h.CargoRegistry, h.NpmCache} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
