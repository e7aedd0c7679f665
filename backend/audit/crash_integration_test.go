//go:build integration

package audit

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const crashChildEnv = "GATEHOUSE_AUDIT_CRASH_CHILD_DB"

// TestCrashChild is the child half of TestSIGKILLMidBatch: it appends from 20
// goroutines and prints "ack <seq> <hash>" for every acknowledged event until
// it is killed. Run directly, it does nothing.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		return
	}
	ctx := t.Context()
	s, err := Open(ctx, openTestDB(t, path), nil, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	// Bounded so an orphaned child cannot run forever.
	deadline := time.Now().Add(2 * time.Minute)
	var wg sync.WaitGroup
	for g := 0; g < 20; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				e, err := s.Append(ctx, Event{Session: fmt.Sprintf("g%d", g), Kind: "tool.call", Actor: "agent:crash",
					Payload: []byte(fmt.Sprintf(`{"g":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("x", 200)))})
				if err != nil {
					fmt.Fprintln(os.Stderr, "child append:", err)
					os.Exit(3)
				}
				mu.Lock()
				// One write per line, under PIPE_BUF, so lines never interleave.
				os.Stdout.WriteString(fmt.Sprintf("ack %d %s\n", e.Seq, e.Hash))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	os.Exit(0)
}

// TestSIGKILLMidBatch kills a writer process mid-stream, several times, and
// checks that the database is intact, the chain verifies, and every event
// the child saw acknowledged is stored with the hash it was acknowledged with.
func TestSIGKILLMidBatch(t *testing.T) {
	path := t.TempDir() + "/gatehouse.db"
	acked := map[int64]string{}
	for round, killAfter := range []int{500, 3000, 7000} {
		before := len(acked)
		runAndKill(t, path, killAfter, acked)
		t.Logf("round %d: %d acknowledged before SIGKILL", round, len(acked)-before)

		ctx := t.Context()
		sqlDB := openTestDB(t, path)
		var integrity string
		if err := sqlDB.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&integrity); err != nil {
			t.Fatal(err)
		}
		if integrity != "ok" {
			t.Fatalf("round %d: integrity_check = %q", round, integrity)
		}
		s, err := Open(ctx, sqlDB, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := s.Verify(ctx)
		if err != nil || !rep.OK {
			t.Fatalf("round %d: Verify = %v, %v", round, rep, err)
		}
		stored := map[int64]string{}
		for after := int64(0); ; {
			page, err := s.Query(ctx, Query{After: after, Limit: MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, e := range page {
				stored[e.Seq] = e.Hash
			}
			after = page[len(page)-1].Seq
		}
		for seq, hash := range acked {
			if stored[seq] != hash {
				t.Fatalf("round %d: acknowledged event %d (hash %s) stored as %q", round, seq, hash, stored[seq])
			}
		}
		s.Close()
		sqlDB.Close()
	}
}

// runAndKill starts the child, SIGKILLs it once it has acknowledged
// killAfter events, and records every complete ack line it printed.
func runAndKill(t *testing.T, path string, killAfter int, acked map[int64]string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	// Backstop for a wedged child; the kill below is the normal path.
	timer := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	r := bufio.NewReader(out)
	n, killed := 0, false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break // EOF after the kill; a partial last line is ignored
		}
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "ack" {
			continue
		}
		seq, perr := strconv.ParseInt(f[1], 10, 64)
		if perr != nil {
			t.Fatalf("bad ack line %q", line)
		}
		acked[seq] = f[2]
		if n++; n == killAfter && !killed {
			killed = true
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child exited after %d acks without being killed: %v", n, err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v", err)
	}
}
