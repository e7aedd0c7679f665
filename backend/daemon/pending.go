package daemon

// PendingApprovals is the number of cards waiting for the person (the
// desktop app asks before a quit denies them).
func (d *Daemon) PendingApprovals() int { return len(d.approvals.Pending()) }
