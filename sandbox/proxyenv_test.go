package sandbox

import (
	"slices"
	"testing"
)

func TestProxyEnv(t *testing.T) {
	in := []string{"PATH=/usr/bin", "HTTPS_PROXY=http://elsewhere:1", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/dev/null"}
	out := ProxyEnv(in, "127.0.0.1:3128")
	for _, want := range []string{
		"PATH=/usr/bin", "HTTP_PROXY=http://127.0.0.1:3128", "https_proxy=http://127.0.0.1:3128", "HTTPS_PROXY=http://127.0.0.1:3128",
		"ALL_PROXY=http://127.0.0.1:3128", "no_proxy=localhost,127.0.0.1,::1", "npm_config_https_proxy=http://127.0.0.1:3128",
		"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_KEY_1=http.proxy", "GIT_CONFIG_VALUE_1=http://127.0.0.1:3128", "GIT_CONFIG_COUNT=2",
		"NODE_USE_ENV_PROXY=1",
	} {
		if !slices.Contains(out, want) {
			t.Errorf("env lacks %s: %v", want, out)
		}
	}
	if slices.Contains(out, "HTTPS_PROXY=http://elsewhere:1") || slices.Contains(out, "GIT_CONFIG_COUNT=1") {
		t.Errorf("old values kept: %v", out)
	}
	if envValue(ProxyEnv(nil, "127.0.0.1:9"), "GIT_CONFIG_COUNT") != "1" {
		t.Error("git's count must start at 1")
	}
}
