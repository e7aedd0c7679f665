package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/config"
)

// TestRunContainer: the config's backend picks the run's container;
// only podman can start one, and a missing one is said plainly.
func TestRunContainer(t *testing.T) {
	podman := filepath.Join(t.TempDir(), "podman")
	if err := os.WriteFile(podman, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		sb      config.Sandbox
		want    string // the container's CLI's base name, "" for none
		wantErr string
	}{
		{"bubblewrap", config.Sandbox{Backend: "bwrap"}, "", ""},
		{"auto", config.Sandbox{Backend: "auto"}, "", ""},
		{"docker", config.Sandbox{Backend: "container", ContainerCLI: "docker"}, "", "needs podman, not docker"},
		{"missing", config.Sandbox{Backend: "container", ContainerCLI: "/no/such/podman"}, "", "is not installed"},
		{"podman", config.Sandbox{Backend: "container", ContainerCLI: podman, ContainerArgs: []string{"--runtime", "runc"}}, "podman", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := runContainer(c.sb, "r1")
			switch {
			case c.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
			case err != nil || (got != nil) != (c.want != ""):
				t.Fatalf("got %+v %v", got, err)
			case got != nil && (got.CLI != podman || got.Name != "gatehouse-run-r1" || !slices.Equal(got.GlobalArgs, c.sb.ContainerArgs)):
				t.Fatalf("got %+v", got)
			}
		})
	}
}
