package call

import "github.com/gatehouse-dev/gatehouse/sandbox/protect"

// Exposure is the config's expose_secrets as patterns. The config
// checked them when it loaded, so an entry that fails here exposes
// nothing (the safe side: a change to it holds).
func (r *Runner) Exposure() protect.Exposure {
	e, err := protect.ParseExposure(r.deps.ExposeSecrets)
	if err != nil {
		return protect.Exposure{}
	}
	return e
}
