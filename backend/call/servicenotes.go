package call

// A command's sandbox has a network of its own (bubblewrap, the
// container) or reaches nothing on the host but Gatehouse's proxy and its
// own servers (Landlock): a database, a cache or a dev server running on
// the person's machine, or one another command started, is out of its
// reach, and the client says only "connection refused" ("permission
// denied" under Landlock). An agent then takes the service for down, and
// may try to start or install it. The note says it was Gatehouse's
// boundary. Test runners print such failures on stdout, so both streams
// are read.

// localService finds a loopback address, with its port when the line
// gives one: 127.0.0.1:5432, [::1]:5432, "127.0.0.1 port 5432",
// "(127.0.0.1), port 5432", host='localhost', port=8000.
var localService = lazyRegexp(`(?i)(?:^|[^\w:.])(127(?:\.\d{1,3}){3}|localhost|::1|0\.0\.0\.0)(?:['"\]]?\)?(?::|,?\s+port\s+|,\s*port=\s*)(\d{1,5}))?(?:[^\w.]|$)`)

// refusedMarkers are what clients print when a connect fails.
var refusedMarkers = []string{"connection refused", "econnrefused", "couldn't connect", "can't connect", "could not connect", "failed to connect", "connect eacces", "connect: permission denied"}

// maxServiceNotes bounds the notes one result gets for services.
const maxServiceNotes = 2

// serviceNotes are the notes for the local services a command's output
// says it could not connect to, one per address.
func serviceNotes(out *commandOutput) []string {
	var notes []string
	seen := map[string]bool{}
	out.linesWith(refusedMarkers, func(line, _ string) bool {
		// The address with its port, where the line gives one
		// (psql names "localhost" first, then "(127.0.0.1), port 5432").
		all := localService().FindAllStringSubmatch(line, -1)
		if all == nil {
			return true
		}
		m := all[0]
		for _, c := range all {
			if c[2] != "" {
				m = c
				break
			}
		}
		addr := m[1]
		if m[2] != "" {
			addr += " port " + m[2]
		}
		if seen[addr] {
			return true
		}
		seen[addr] = true
		notes = append(notes, "Gatehouse's sandbox lets a command reach only the servers it starts itself on "+addr+" and the machine's other local addresses: a database or server running on the person's machine, or one another command started, is out of its reach, so the connection failed. If the task needs that service, start it within the same command, or ask the person: they can let commands reach a service on this machine by adding its port to host_ports under [network] in Gatehouse's config.")
		return len(notes) < maxServiceNotes
	})
	return notes
}
