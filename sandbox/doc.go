// Package sandbox defines how Gatehouse runs an agent's command under OS
// confinement: a Spec goes in, a Result comes out, and a Backend (in a
// subpackage) decides how the kernel enforces it. The package knows nothing
// of MCP or policy and imports nothing else of ours.
package sandbox
