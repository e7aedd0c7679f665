package unconfined

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// The test binary doubles as the sandbox helper, as gatehouse does.
func TestMain(m *testing.M) { launchtest.Main(m) }
