package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"empty", ``, ""},
		{"full", "listen = \"127.0.0.1:0\"\nmode = \"plan\"\n[workspaces]\nroots = [\"/tmp/ws\"]\n[sandbox]\nbackend = \"bwrap\"\n", ""},
		{"unknown top key", "listen = \"x\"\nlisten_adress = \"y\"\n", `cfg.toml line 2: unknown key "listen_adress" at the top level (did you mean "listen"?)`},
		{"unknown nested key", "[sandbox]\nbakend = \"bwrap\"\n", `line 2: unknown key "bakend" in [sandbox] (did you mean "backend"?)`},
		{"bad type", "max_connections = \"many\"\n", "cfg.toml line 1: max_connections must be a whole number of connections"},
		{"bad backend", "[sandbox]\nbackend = \"chroot\"\n", "sandbox.backend"},
		{"bad mode", "mode = \"yolo\"\n", "mode"},
		{"syntax", "listen = \n", "cfg.toml line 1 is not valid TOML"},
		{"negative timeout", "approval_timeout_s = -5\n", "cfg.toml: approval_timeout_s must be a number of seconds, 0 or more"},
		{"expose secrets", "[sandbox]\nexpose_secrets = [\".env.test\", \"testdata/\", \"certs/*.pem\"]\n", ""},
		{"expose an absolute path", "[sandbox]\nexpose_secrets = [\"/home/me/.env\"]\n", "sandbox.expose_secrets"},
		{"expose outside the workspace", "[sandbox]\nexpose_secrets = [\"../other/.env\"]\n", "sandbox.expose_secrets"},
		{"expose a bad pattern", "[sandbox]\nexpose_secrets = [\"[\"]\n", "not a valid pattern"},
		{"network", "[network]\nenabled = false\ntest_only_hosts = { \"pkgs.example.test\" = \"127.0.0.1\" }\n", ""},
		{"network typo", "[network]\nenable = true\n", `unknown key "enable" in [network] (did you mean "enabled"?); the keys allowed there are enabled, test_only_hosts`},
		{"host ports", "[network]\nhost_ports = [5432, 6379]\n", ""},
		{"host port out of range", "[network]\nhost_ports = [70000]\n", "network.host_ports: 70000 is not a port"},
		{"host port twice", "[network]\nhost_ports = [5432, 5432]\n", "lists 5432 twice"},
		{"host port is the daemon's", "listen = \"127.0.0.1:7999\"\n[network]\nhost_ports = [7999]\n", "Gatehouse's own port"},
		{"host port is the default listen", "[network]\nhost_ports = [7465]\n", "Gatehouse's own port"},
		{"host port is the sandbox's proxy", "[network]\nhost_ports = [3128]\n", "Gatehouse's proxy inside the sandbox"},
		{"host ports not numbers", "[network]\nhost_ports = [\"5432\"]\n", "network.host_ports must be a list of port numbers"},
		{"toolchains and cache", "[sandbox]\npath = [\"~/bin\"]\nread_only = [\"/srv/sdk\"]\ncache_mib = 2048\n", ""},
		{"no cache", "[sandbox]\ncache_mib = -1\n", ""},
		{"export", "[export]\notlp_endpoint = \"http://127.0.0.1:4318\"\notlp_headers = { \"authorization\" = \"Bearer t\" }\nocsf_file = \"/var/log/gh.ocsf.jsonl\"\nmax_backlog = 5000\n", ""},
		{"export credentials in the URL", "[export]\notlp_endpoint = \"http://user:pw@collector.example.test:4318\"\n", "put credentials in otlp_headers"},
		{"export token in the query", "[export]\notlp_endpoint = \"http://collector.example.test:4318/?token=x\"\n", "put credentials in otlp_headers"},
		{"export not http", "[export]\notlp_endpoint = \"collector.example.test:4318\"\n", "export.otlp_endpoint"},
		{"export headers without endpoint", "[export]\notlp_headers = { \"a\" = \"b\" }\n", "name the collector"},
		{"export header with a newline", "[export]\notlp_endpoint = \"http://127.0.0.1:4318\"\notlp_headers = { \"a\" = \"b\\nc\" }\n", "line break"},
		{"export relative ocsf file", "[export]\nocsf_file = \"audit.jsonl\"\n", "absolute path"},
		{"export negative backlog", "[export]\nmax_backlog = -1\n", "export.max_backlog"},
		{"export typo", "[export]\notlp_endpont = \"http://127.0.0.1:4318\"\n", `unknown key "otlp_endpont" in [export]`},
		{"bad cache size", "[sandbox]\ncache_mib = -5\n", "sandbox.cache_mib"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), "cfg.toml")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.toml")
	if _, err := Load(p, false); err != nil {
		t.Fatalf("missing default config should be fine: %v", err)
	}
	if _, err := Load(p, true); err == nil {
		t.Fatal("missing explicit config must be an error")
	}
	if err := os.WriteFile(p, []byte("public = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, true)
	if err != nil || !c.Public {
		t.Fatalf("Load = %+v, %v", c, err)
	}
}

func TestDefaultDataDirXDG(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/x/data")
	d, err := DefaultDataDir()
	if err != nil {
		t.Fatal(err)
	}
	if d != "/x/data/gatehouse" && !strings.Contains(d, "Gatehouse") {
		t.Fatalf("DefaultDataDir = %q", d)
	}
}

// The proxy is on unless switched off, and the test-only hosts are empty
// unless named.
func TestNetworkDefaults(t *testing.T) {
	c, err := Parse(nil, "cfg.toml")
	if err != nil || !c.Network.On() || len(c.Network.TestHosts) != 0 {
		t.Fatalf("defaults: %+v, %v", c.Network, err)
	}
	c, err = Parse([]byte("[network]\nenabled = false\n"), "cfg.toml")
	if err != nil || c.Network.On() {
		t.Fatalf("off: %+v, %v", c.Network, err)
	}
}

// The [public] table tunes exposures, and the old top-level
// `public = true` still means the whole daemon on another address.
func TestPublicTableAndOldKey(t *testing.T) {
	for _, c := range []struct {
		name, toml string
		public     bool
		tunnel     []string
		err        string
	}{
		{"old key", "public = true\nlisten = \"0.0.0.0:7465\"\n", true, nil, ""},
		{"table", "[public]\ntunnel = [\"mytunnel\", \"{port}\"]\ntunnel_wait_s = 3\n", false, []string{"mytunnel", "{port}"}, ""},
		{"unknown key in table", "[public]\ntunel = [\"x\"]\n", false, nil, "tunel"},
		{"empty program", "[public]\ntunnel = [\"\"]\n", false, nil, "must start with the program"},
		{"negative wait", "[public]\ntunnel_wait_s = -1\n", false, nil, "tunnel_wait_s"},
		{"local wins", "[public]\nlocal_wins_ms = 50\n", false, nil, ""},
		{"local wins for a minute and more", "[public]\nlocal_wins_ms = 60001\n", false, nil, "local_wins_ms"},
		{"negative local wins", "[public]\nlocal_wins_ms = -1\n", false, nil, "local_wins_ms"},
	} {
		cfg, err := Parse([]byte(c.toml), "config.toml")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || cfg.Public != c.public || strings.Join(cfg.Exposures.Tunnel, " ") != strings.Join(c.tunnel, " ") {
			t.Errorf("%s: %+v %v", c.name, cfg, err)
		}
	}
}
