package call

import (
	"strings"
	"testing"
)

// What clients print when a local service is out of reach gets one note
// naming the address; other failures, and remote hosts, get none.
func TestServiceNotes(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
	}{
		{"node", "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect", "127.0.0.1 port 5432"},
		{"node, both families", "AggregateError [ECONNREFUSED]:\n    Error: connect ECONNREFUSED ::1:6379\n", "::1 port 6379"},
		{"node under landlock", "Error: connect EACCES 127.0.0.1:5432\n", "127.0.0.1 port 5432"},
		{"go", "dial tcp 127.0.0.1:8080: connect: connection refused\n", "127.0.0.1 port 8080"},
		{"go, ipv6", "dial tcp [::1]:8080: connect: connection refused\n", "::1 port 8080"},
		{"go under landlock", "dial tcp 127.0.0.1:8080: connect: permission denied\n", "127.0.0.1 port 8080"},
		{"psql", `psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused`, "127.0.0.1 port 5432"},
		{"curl", "curl: (7) Failed to connect to localhost port 3000 after 0 ms: Couldn't connect to server\n", "localhost port 3000"},
		{"redis-cli", "Could not connect to Redis at 127.0.0.1:6379: Connection refused\n", "127.0.0.1 port 6379"},
		{"requests", "requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=8000): Max retries exceeded with url: / (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused'))", "localhost port 8000"},
		{"mysql", "ERROR 2003 (HY000): Can't connect to MySQL server on '127.0.0.1:3306' (111)\n", "127.0.0.1 port 3306"},
		{"busybox, no port", "wget: can't connect to remote host (127.0.0.1): Connection refused\n", "127.0.0.1 "},
		{"a remote host", "dial tcp 192.0.2.10:5432: connect: connection refused\n", ""},
		{"a name that ends in localhost", "dial tcp db.notlocalhost:5432: connect: connection refused\n", ""},
		{"no refusal", "listening on 127.0.0.1:3000\n", ""},
		{"no address", "ConnectionRefusedError: [Errno 111] Connection refused\n", ""},
	} {
		notes := serviceNotes(newCommandOutput([]byte(tc.out)))
		switch {
		case tc.want == "" && len(notes) > 0:
			t.Errorf("%s: %q", tc.name, notes)
		case tc.want != "" && (len(notes) != 1 || !strings.Contains(notes[0], "on "+tc.want)):
			t.Errorf("%s: %q, want one naming %q", tc.name, notes, tc.want)
		}
	}
	// One note per address, a few at most, from either stream.
	out := []byte("connect ECONNREFUSED 127.0.0.1:5432\nconnect ECONNREFUSED 127.0.0.1:5432\n")
	if n := serviceNotes(newCommandOutput(out, out)); len(n) != 1 {
		t.Errorf("the same address twice: %q", n)
	}
	many := []byte("connect ECONNREFUSED 127.0.0.1:1001\nconnect ECONNREFUSED 127.0.0.1:1002\nconnect ECONNREFUSED 127.0.0.1:1003\n")
	if n := serviceNotes(newCommandOutput(many)); len(n) != maxServiceNotes {
		t.Errorf("three addresses: %d notes", len(n))
	}
}
