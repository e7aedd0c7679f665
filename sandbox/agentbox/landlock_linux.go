package agentbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/gitguard"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
)

// Where bubblewrap cannot make namespaces, the agent runs in the host's
// own, confined by what it inherits and cannot drop: the sandbox helper
// (initproc, supervising) stays outside as the run's subreaper, and the
// agent's stage applies Landlock (the paths below, and TCP connects to
// its routes' ports only), the socket filter whose every connect the
// supervisor decides by address, and the terminal filter, then execs
// the agent. The agent dials the proxy and the daemon where it would in
// a namespace of its own (ProxyAddr, 127.0.0.1:AgentPort); the
// supervisor connects it to the run's listeners on the host's loopback
// instead. Ending the run is the supervisor's: on SIGTERM it ends every
// process it adopted, daemonised ones included.
//
// The agent's settings inside its state directory (ReadOnlyOver) are
// read-only, its state directory's other entries writable one by one:
// Landlock cannot keep a file read-only in a directory where new files
// may be made. An agent that makes files there directly (Gemini saves
// projects.json through a temporary file beside it) has its state
// directory writable whole and its settings Guarded instead: a change
// stops the run at once, and they are put back (gitguard, as for git's
// config and hooks in a command's run).
//
// What bubblewrap gives that this cannot is said in the README (no PID
// namespace, hidden files refused rather than stood in for, no file of
// the run's own at RunInfoPath, no new files directly in the workspace
// root, settings guarded rather than read-only for some agents).

// startLandlock starts s's agent under Landlock.
func startLandlock(ctx context.Context, s Spec) (*Box, error) {
	if !filepath.IsAbs(s.Init) {
		return nil, fmt.Errorf("the sandbox helper must be an absolute path, not %q", s.Init)
	}
	if abi := initproc.ABI(); abi < 4 {
		return nil, fmt.Errorf("%w: Landlock ABI %d cannot confine the network (Linux 6.7 or later has it)", sandbox.ErrUnavailable, abi)
	}
	scratch, err := os.MkdirTemp("", "gatehouse-run-")
	if err != nil {
		return nil, err
	}
	if len(s.Guarded) == 0 {
		b, err := launchLandlock(s, scratch)
		if err != nil {
			os.RemoveAll(scratch)
		}
		return b, err
	}
	lease, err := gitguard.Default.Enter(ctx, s.Guarded, nil)
	if err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("guard the agent's settings: %w", err)
	}
	b, err := launchLandlock(s, scratch)
	if err != nil {
		lease.Leave()
		os.RemoveAll(scratch)
		return nil, err
	}
	b.leave = lease.Leave
	go func() {
		select {
		case <-lease.Abort():
			b.Kill()
		case <-b.done:
		}
	}()
	return b, nil
}

func launchLandlock(s Spec, scratch string) (*Box, error) {
	home, tmp := s.HomeDir, filepath.Join(scratch, "tmp")
	if home == "" {
		home = filepath.Join(scratch, "home")
		if err := sandbox.FreshHome(s.Home, home); err != nil {
			return nil, err
		}
	}
	if s.Tmp != "" {
		tmp = s.Tmp
	} else if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	if err := writeHomeRunInfo(home, s.Info); err != nil {
		return nil, err
	}
	_, p, _ := net.SplitHostPort(ProxyAddr)
	seenProxy, _ := strconv.Atoi(p)
	proxyLn, err := landlock.ListenLoopback("the run's proxy")
	if err != nil {
		return nil, err
	}
	agentLn, err := landlock.ListenLoopback("the daemon's agent routes")
	if err != nil {
		proxyLn.Close()
		return nil, err
	}
	proxyPort := port(proxyLn)
	hosts := map[int][]net.Listener{}
	closeListeners := func() {
		proxyLn.Close()
		agentLn.Close()
		for _, lns := range hosts {
			lns[0].Close()
		}
	}
	routes := map[int]int{seenProxy: proxyPort, s.AgentPort: port(agentLn)}
	for _, hp := range s.HostPorts {
		ln, err := landlock.ListenLoopback(fmt.Sprintf("the run's host port %d", hp))
		if err != nil {
			closeListeners()
			return nil, err
		}
		hosts[hp], routes[hp] = []net.Listener{ln}, port(ln)
	}
	rules := landlock.AgentRules(landlock.Agent{
		ReadOnly:   slices.Concat(s.ReadOnly, s.Programs, s.Shown, []string{s.Init}),
		ReadWrite:  slices.Concat([]string{home, tmp}, s.ReadWrite),
		Workspaces: s.Workspaces,
		// A missing protected name's directory takes no new entries
		// (Landlock's answer to the creation guard, as for a command).
		Protected: slices.Concat(s.Protected, s.Uncreatable),
		Settings:  s.ReadOnlyOver,
		Guarded:   s.Guarded,
		Hidden:    s.Hidden,
	})
	cfg := initproc.Config{
		Supervise: true, Terminal: true, Landlock: &rules, Path: s.Argv[0], Argv: s.Argv,
		Net: &initproc.Net{Mode: initproc.NetProxy, HostNamespace: true, ProxyPort: proxyPort, Routes: routes},
	}
	enc, err := cfg.Encode()
	if err != nil {
		closeListeners()
		return nil, err
	}
	cmd := exec.Command(s.Init, initproc.Entry, enc)
	cmd.Env = withEnv(s.Env, "HOME="+home, "TMPDIR="+tmp)
	cmd.Dir = s.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.Stdin, s.Stdout, s.Stderr
	// The terminal's session and process group, as on bubblewrap (a group
	// of its own without a terminal). If this process dies, the
	// supervisor ends the run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: s.OwnGroup}
	if err := cmd.Start(); err != nil {
		closeListeners()
		return nil, fmt.Errorf("start the sandbox helper: %w", err)
	}
	b := started(cmd, scratch, syscall.SIGTERM)
	// The agent shares this network namespace: one socket-diagnostics
	// socket finds the socket behind each of its connections exactly
	// (Process), where the host's TCP table is long and shared.
	if fd, err := openSockDiag(); err == nil {
		b.diag = fd
	}
	b.ownGroup = s.OwnGroup
	b.Proxy, b.Agent, b.Hosts = proxyLn, agentLn, hosts
	return b, nil
}

// writeHomeRunInfo leaves the run's file in the agent's home (see
// HomeRunInfo), replacing an earlier run's.
func writeHomeRunInfo(home string, ri RunInfo) error {
	b, err := json.Marshal(ri)
	if err != nil {
		return err
	}
	p := filepath.Join(home, HomeRunInfo)
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("replace the run's file in the agent's home: %w", err)
	}
	if err := os.WriteFile(p, b, 0o444); err != nil {
		return fmt.Errorf("leave the run's file in the agent's home: %w", err)
	}
	return nil
}

func port(ln net.Listener) int { return ln.Addr().(*net.TCPAddr).Port }

// withEnv is env with each of set's variables replaced or added.
func withEnv(env []string, set ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		replaced := false
		for _, s := range set {
			if strings.HasPrefix(s, k+"=") {
				replaced = true
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return append(out, set...)
}
