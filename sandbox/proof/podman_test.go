package proof

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/container"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// PodmanTestOptions are the podman flags this kind of machine needs
// (no systemd, cgroup v1): runc, cgroupfs, explicit ulimits.
func podmanTestOptions() container.Options {
	return container.Options{
		CLI:        "podman",
		Image:      "localhost/gatehouse-busybox:test",
		GlobalArgs: []string{"--runtime", "runc", "--cgroup-manager=cgroupfs"},
		RunArgs:    []string{"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"},
	}
}

// newPodman returns a podman backend with the busybox test image built.
func newPodman(t testing.TB) *container.Backend {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		t.Fatalf("podman is required for the container tests (apt install podman runc): %v", err)
	}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		t.Fatalf("busybox is required to build the test image (apt install busybox-static): %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	o := podmanTestOptions()
	o.Helper = launchtest.StaticHelper(t)
	b, err := container.New(ctx, o)
	if err != nil {
		t.Fatalf("podman backend: %v", err)
	}
	if err := b.BuildBusyboxImage(ctx, bb, podmanTestOptions().Image); err != nil {
		t.Fatalf("build image: %v", err)
	}
	return b
}
