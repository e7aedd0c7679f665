package agentconfig

// Wire installs agent a for scope and gives it its own agent token, so it
// can be revoked alone.
func (in Installer) Wire(a Agent, scope Scope, w Wiring) (Result, error) {
	res, err := in.Install(a, scope, w)
	if err != nil {
		return res, err
	}
	if _, err := EnsureToken(in.DataDir, a); err != nil {
		return res, err
	}
	return res, nil
}

// Unwire uninstalls agent a for scope; its token file goes once no scope
// still has an install record.
func (in Installer) Unwire(a Agent, scope Scope) (Result, error) {
	res, err := in.Uninstall(a, scope)
	if err != nil {
		return res, err
	}
	other := User
	if scope == User {
		other = System
	}
	if !in.Status(a, other).Recorded {
		if _, err := RemoveToken(in.DataDir, a); err != nil {
			return res, err
		}
	}
	return res, nil
}
