package cli

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tail := " S 41 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10"
	tests := []struct {
		name, in, comm string
		ppid           int
		start          uint64
		bad            bool
	}{
		{"plain", "7 (node)" + tail, "node", 41, 987654, false},
		{"a name with spaces and parentheses", "7 (a) b (c)" + tail, "a) b (c", 41, 987654, false},
		{"cut short", "7 (node) S 41 42", "", 0, 0, true},
		{"no name", "7 node" + tail, "", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			comm, ppid, start, err := parseStat(7, tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("parseStat = %q %d %d, want an error", comm, ppid, start)
				}
				return
			}
			if err != nil || comm != tt.comm || ppid != tt.ppid || start != tt.start {
				t.Fatalf("parseStat = %q %d %d %v, want %q %d %d", comm, ppid, start, err, tt.comm, tt.ppid, tt.start)
			}
		})
	}
}

// agentProcessChild marks the child TestAgentProcessSkipsShells starts.
const agentProcessChild = "GATEHOUSE_TEST_AGENT_PROCESS"

// A hook started through a shell and a bridge started directly name the
// same agent process: the one that started them.
func TestAgentProcessSkipsShells(t *testing.T) {
	if os.Getenv(agentProcessChild) != "" {
		os.Stdout.WriteString(agentProcess() + "\n")
		return
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("no /proc here (%v): agent processes are not named", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, _, start, err := procStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want := "proc-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(start, 10)
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
