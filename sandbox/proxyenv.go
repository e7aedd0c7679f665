package sandbox

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ProxyAddr is where a run in a network namespace of its own (bwrap, a
// container) finds its proxy: inside that namespace, so no other
// process on the machine can reach it.
const ProxyAddr = "127.0.0.1:3128"

// NodeEnvProxy is Node's switch for its built-in proxy support.
const NodeEnvProxy = "NODE_USE_ENV_PROXY"

// ProxyEnv points env's proxy variables at addr (host:port), replacing
// any the spec set: the upper- and lower-case forms (curl reads only
// lower-case http_proxy; Go, pip and most others read either), ALL_PROXY,
// npm's own, and git's http.proxy (through GIT_CONFIG_COUNT, added after
// entries already there). NO_PROXY keeps loopback direct, where a test
// suite's own servers live inside the sandbox. NODE_USE_ENV_PROXY makes
// Node's own fetch and http read them (from Node 22.21 and 24.5; earlier
// ones ignore it): without it a script's fetch looks the name up itself,
// which no sandbox can, and fails.
func ProxyEnv(env []string, addr string) []string {
	url := "http://" + addr
	set := map[string]string{
		"HTTP_PROXY": url, "HTTPS_PROXY": url, "ALL_PROXY": url, "NO_PROXY": "localhost,127.0.0.1,::1",
		"npm_config_proxy": url, "npm_config_https_proxy": url, "npm_config_noproxy": "localhost,127.0.0.1,::1",
		NodeEnvProxy: "1",
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"} {
		set[strings.ToLower(k)] = set[k]
	}
	out := make([]string, 0, len(env)+len(set)+3)
	gitCount := 0
	for _, e := range env {
		k := envKey(e)
		if _, ours := set[k]; ours {
			continue
		}
		if k == "GIT_CONFIG_COUNT" {
			gitCount, _ = strconv.Atoi(strings.TrimPrefix(e, k+"="))
			continue
		}
		out = append(out, e)
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	n := strconv.Itoa(max(gitCount, 0))
	return append(out, "GIT_CONFIG_KEY_"+n+"=http.proxy", "GIT_CONFIG_VALUE_"+n+"="+url,
		"GIT_CONFIG_COUNT="+strconv.Itoa(max(gitCount, 0)+1))
}
