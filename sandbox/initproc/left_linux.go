package initproc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// maxLeft bounds the names a run's status carries; maxName one name.
const maxName = 32

// maxLeft bounds the names a run's status carries.
const maxLeft = 8

// leftRunning names what still runs below self once the run's main
// process has ended (what it started in the background and left), each
// program once, before the run is ended: the agent is told a server it
// started did not outlive its command.
func leftRunning(self int) []string {
	pids, err := proctree.Descendants(self)
	if err != nil {
		return nil
	}
	var names []string
	for _, pid := range pids {
		name := programName(pid)
		if name == "" || slices.Contains(names, name) {
			continue
		}
		if names = append(names, name); len(names) == maxLeft {
			break
		}
	}
	return names
}

// programName is what pid was started as: the last element of its first
// argument up to a blank (a program that retitles itself, as npm does,
// keeps its name), else its comm (a program run through a descriptor is
// "exe" there). Never its arguments, which may hold secrets.
func programName(pid int) string {
	proc := "/proc/" + strconv.Itoa(pid)
	b, _ := os.ReadFile(proc + "/cmdline")
	first, _, _ := strings.Cut(string(b), "\x00")
	first, _, _ = strings.Cut(first, " ")
	name := filepath.Base(first)
	if first == "" || name == "." || name == "/" {
		c, _ := os.ReadFile(proc + "/comm")
		name = strings.TrimSpace(string(c))
	}
	if len(name) > maxName {
		name = name[:maxName]
	}
	return strings.ToValidUTF8(name, "")
}
