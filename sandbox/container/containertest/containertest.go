// Package containertest gives tests outside package container a podman
// backend on a busybox image built from the host's static busybox, so
// the container tests need no registry.
package containertest

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/container"
)

// Options are the podman flags this kind of machine needs (no systemd,
// cgroup v1: runc, cgroupfs, explicit ulimits) and the test image.
func Options() container.Options {
	return container.Options{
		CLI:        "podman",
		Image:      "localhost/gatehouse-busybox:test",
		GlobalArgs: []string{"--runtime", "runc", "--cgroup-manager=cgroupfs"},
		RunArgs:    []string{"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"},
	}
}

// Podman returns a backend with Options and helper (none when "") once
// the test image is built.
func Podman(t testing.TB, helper string) *container.Backend {
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
	o := Options()
	o.Helper = helper
	b, err := container.New(ctx, o)
	if err != nil {
		t.Fatalf("podman backend: %v", err)
	}
	if err := b.BuildBusyboxImage(ctx, bb, o.Image); err != nil {
		t.Fatalf("build the test image: %v", err)
	}
	return b
}
