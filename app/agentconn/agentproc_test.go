package agentconn

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// agentProcessChild marks the child TestAgentProcessSkipsShells starts.
const agentProcessChild = "GATEHOUSE_TEST_AGENT_PROCESS"

// A hook started through a shell and a bridge started directly name the
// same agent process: the one that started them.
func TestAgentProcessSkipsShells(t *testing.T) {
	if os.Getenv(agentProcessChild) != "" {
		os.Stdout.WriteString(AgentProcess() + "\n")
		return
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("no /proc here (%v): agent processes are not named", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self0, err := proctree.Stat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want := "proc-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(self0.Start, 10)
	for _, argv := range [][]string{
		{self, "-test.run", "^TestAgentProcessSkipsShells$"},
		{"sh", "-c", "\"$0\" -test.run '^TestAgentProcessSkipsShells$'; exit $?", self},
		{"bash", "-c", "sh -c '\"$0\" -test.run ^TestAgentProcessSkipsShells$' \"$0\"; exit $?", self},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), agentProcessChild+"=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		if got := strings.SplitN(string(out), "\n", 2)[0]; got != want {
			t.Errorf("%v: agentProcess = %q, want %q", argv[:2], got, want)
		}
	}
}
