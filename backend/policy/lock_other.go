//go:build !unix

package policy

// lockFile is process-local elsewhere; appendMu still serialises this process.
func lockFile(string) (func(), error) { return func() {}, nil }
