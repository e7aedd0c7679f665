package cli

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
)

// runContainer is the container a confined run starts in when the
// config's [sandbox] backend is "container" (as each command's sandbox
// is), nil for bubblewrap. Only podman can start one from an empty root
// with the run's listeners handed out (--rootfs, --preserve-fds).
func runContainer(sb config.Sandbox, runID string) (*agentbox.Container, error) {
	if sb.Backend != "container" {
		return nil, nil
	}
	cli := sb.ContainerCLI
	if cli == "" {
		cli = "podman"
	}
	if !strings.Contains(filepath.Base(cli), "podman") {
		return nil, userErrorf(nil, "`gatehouse run` with [sandbox] backend = \"container\" needs podman, not %s; set container_cli = \"podman\" or backend = \"bwrap\"", cli)
	}
	path, err := exec.LookPath(cli)
	if err != nil {
		return nil, userErrorf(err, "podman (%s) is not installed, and [sandbox] backend = \"container\" confines `gatehouse run` with it; install it or set backend = \"bwrap\"", cli)
	}
	return &agentbox.Container{CLI: path, GlobalArgs: sb.ContainerArgs, RunArgs: sb.ContainerRun, Name: agentbox.ContainerName(runID)}, nil
}
