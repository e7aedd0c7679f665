// Package containertest gives tests outside package container a podman
// backend on a busybox image built from the host's static busybox, so
// the container tests need no registry.
package containertest

import (
	"context"
	"os/exec"
	"strings"
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
	return build(t, helper, Options().Image)
}

// GitImage is the test image with the host's git in it, for the tests
// of git's work inside a container.
const GitImage = "localhost/gatehouse-busybox-git:test"

// PodmanGit is Podman with GitImage as the image: the busybox image plus
// the host's git and the libraries it loads (ldd), at their own paths.
func PodmanGit(t testing.TB) (*container.Backend, container.Options) {
	t.Helper()
	o := Options()
	o.Image = GitImage
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is required for the container's git tests: %v", err)
	}
	out, err := exec.Command("ldd", git).Output()
	if err != nil {
		t.Fatalf("ldd %s: %v", git, err)
	}
	files := []string{git}
	for _, line := range strings.Split(string(out), "\n") {
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "/") {
				files = append(files, f)
			}
		}
	}
	return build(t, "", o.Image, files...), o
}

func build(t testing.TB, helper, image string, extra ...string) *container.Backend {
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
	o.Helper, o.Image = helper, image
	b, err := container.New(ctx, o)
	if err != nil {
		t.Fatalf("podman backend: %v", err)
	}
	if err := b.BuildBusyboxImage(ctx, bb, o.Image, extra...); err != nil {
		t.Fatalf("build the test image: %v", err)
	}
	return b
}
