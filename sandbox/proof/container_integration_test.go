//go:build integration

package proof

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

func TestBatteryPodman(t *testing.T) {
	// A container shows no home at all: any home will do.
	runBattery(t, func(string) sandbox.Backend { return newPodman(t) })
}
