package proof

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/container"
	"github.com/gatehouse-dev/gatehouse/sandbox/container/containertest"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// newPodman returns a podman backend with the static helper and the
// busybox test image built.
func newPodman(t testing.TB) *container.Backend {
	t.Helper()
	return containertest.Podman(t, launchtest.StaticHelper(t))
}
