package call

import (
	"path"
	"slices"
	"strings"
)

// A command's sandbox shows it none of the machine's unix sockets (on
// Landlock it can make none), so a client that talks to its service by one
// fails: psql's "connection to server on socket … failed", docker's
// "Cannot connect to the Docker daemon at unix:///…". The agent then takes
// the service for down. The note says it was Gatehouse's boundary, and
// what the person can do: open a database's TCP port (host_ports), never
// the container engine, whose containers would run outside the sandbox.

// unixSocket finds a socket's path in a line: after unix://, or a path
// whose name says socket (.sock, .socket, PostgreSQL's .s.PGSQL.N).
var unixSocket = lazyRegexp(`(?:unix://)?(/[^\s'"()]*?(?:\.sock|\.socket|\.s\.PGSQL\.\d+))(?:[^\w.]|\.(?:\s|$)|$)`)

// socketFailures are what clients print when a socket is not there, or
// cannot be connected to.
var socketFailures = []string{
	"no such file or directory", "permission denied", "operation not permitted", "connection refused",
	"cannot connect", "can't connect", "could not connect", "couldn't connect", "unable to connect", "failed to connect",
}

// engineSockets name the container engines' sockets.
var engineSockets = []string{"docker", "podman", "containerd", "crio", "buildkit"}

// socketNotes are the notes for the unix sockets a command's output says
// it could not reach, one per socket, and those sockets' paths.
func socketNotes(out *commandOutput) (notes, paths []string) {
	out.linesWith(socketFailures, func(line, _ string) bool {
		m := unixSocket().FindStringSubmatch(line)
		if m == nil || slices.Contains(paths, m[1]) {
			return true
		}
		paths = append(paths, m[1])
		notes = append(notes, socketNote(m[1]))
		return len(notes) < maxServiceNotes
	})
	return notes, paths
}

// socketNote is the note for one socket out of reach.
func socketNote(sock string) string {
	base := strings.ToLower(path.Base(sock))
	for _, e := range engineSockets {
		if strings.Contains(base, e) {
			return "Gatehouse's sandbox keeps the container engine's socket (" + sock + ") out of a command's reach: a container started through it would run outside the sandbox, with the person's rights. If the task needs containers, ask the person to run that step."
		}
	}
	return "Gatehouse's sandbox shows commands none of this machine's unix sockets, so the service behind " + sock + " is out of reach. If it also listens on TCP, the person can let commands reach it by adding its port to host_ports under [network] in Gatehouse's config, and the command then connects to 127.0.0.1 at that port (psql -h 127.0.0.1, mysql -h 127.0.0.1, redis-cli -h 127.0.0.1)."
}
