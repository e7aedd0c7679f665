package call

import (
	"strings"
	"testing"
)

func TestSocketNotes(t *testing.T) {
	cases := []struct {
		name, out, path, says string
	}{
		{"psql", `psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such file or directory`,
			"/var/run/postgresql/.s.PGSQL.5432", "host_ports under [network]"},
		{"docker", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
			"/var/run/docker.sock", "container engine's socket"},
		{"podman", `Error: unable to connect to Podman socket: Get "http://d/v4.3.1/libpod/_ping": dial unix /run/podman/podman.sock: connect: no such file or directory`,
			"/run/podman/podman.sock", "container engine's socket"},
		{"mysql", "ERROR 2002 (HY000): Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)",
			"/var/run/mysqld/mysqld.sock", "mysql -h 127.0.0.1"},
		{"redis", "Could not connect to Redis at /var/run/redis/redis-server.sock: No such file or directory",
			"/var/run/redis/redis-server.sock", "host_ports"},
		{"a socket that answered", "listening on /tmp/app.sock", "", ""},
		{"a missing file, no socket", "cat: /etc/app.conf: No such file or directory", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			notes, paths := socketNotes(newCommandOutput([]byte(tc.out + "\n")))
			if tc.path == "" {
				if len(notes) != 0 {
					t.Fatalf("notes %q", notes)
				}
				return
			}
			if len(notes) != 1 || len(paths) != 1 || paths[0] != tc.path || !strings.Contains(notes[0], tc.says) || !strings.Contains(notes[0], tc.path) {
				t.Fatalf("notes %q paths %q, want one on %s saying %q", notes, paths, tc.path, tc.says)
			}
		})
	}
}
