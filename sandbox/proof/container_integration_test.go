//go:build integration

package proof

import (
	"testing"
)

func TestBatteryPodman(t *testing.T) {
	runBattery(t, newPodman(t))
}
