package toolcall

// fileTools are added as the file operations land.
func (r *Runner) fileTools() []*Tool { return nil }
