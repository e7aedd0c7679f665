package sandbox

import "strings"

// ContainerMount is one value of a container CLI's --mount flag: its
// fields ("type=bind", "source="+p, "readonly") as the one CSV record
// podman and docker read it as. A field holding a comma, a quote or a
// line break is quoted, so a path with any of them is mounted where it
// says rather than cut at the comma (or refused).
func ContainerMount(fields ...string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if !strings.ContainsAny(f, ",\"\r\n") && strings.TrimSpace(f) == f {
			b.WriteString(f)
			continue
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(f, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}
