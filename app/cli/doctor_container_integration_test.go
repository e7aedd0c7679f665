//go:build integration

package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/container/containertest"
	"github.com/gatehouse-dev/gatehouse/sandbox/proof"
)

// TestDoctorContainerRunRows: with the container selected, the doctor's
// whole-agent table runs every probe in a container as `gatehouse run`
// would, and each row passes.
func TestDoctorContainerRunRows(t *testing.T) {
	containertest.Podman(t, "")
	o := containertest.Options()
	args := []string{"--data", filepath.Join(t.TempDir(), "data"), "doctor", "--backend", "container", "--container-cli", o.CLI, "--container-image", o.Image}
	for _, a := range o.GlobalArgs {
		args = append(args, "--container-global-arg="+a)
	}
	for _, a := range o.RunArgs {
		args = append(args, "--container-run-arg="+a)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(t.TempDir(), "config"))
	out, errOut, code := clitest.Run(ctx, t, clitest.Binary(t), env, args...)
	_, runTable, _ := strings.Cut(out, "Whole-agent mode")
	if code != 0 {
		t.Fatalf("doctor: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, c := range proof.ConfinedChecks {
		if !strings.Contains(runTable, "container  "+c) {
			t.Errorf("the whole-agent table has no container row %q", c)
		}
	}
	var pass int
	for _, line := range strings.Split(runTable, "\n") {
		if strings.HasPrefix(line, "container ") && strings.Contains(line, " PASS ") {
			pass++
		}
	}
	if pass != len(proof.ConfinedChecks) {
		t.Errorf("want %d container rows to PASS, saw %d:\n%s", len(proof.ConfinedChecks), pass, runTable)
	}
}
