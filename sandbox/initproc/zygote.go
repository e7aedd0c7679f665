package initproc

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// A zygote is one session's sandbox template: bwrap starts it once, it
// makes the session's layout (every mount decided before a call), and
// then starts each of the session's sandboxes on the daemon's request,
// in a user, mount, PID, IPC and UTS namespace of its own (and a network
// namespace, unless the run shares the host's). Building a sandbox this
// way skips bwrap and the layout per call, which cost most of a short
// command's CPU when calls come back to back.
//
// The zygote runs nothing of the agent's. Each sandbox's first process
// (the run's PID 1, see CallInit) waits for the call, makes its mounts,
// and starts the target confined as a helper bwrap started would have.

// ZygoteConfig makes the helper a session's zygote.
type ZygoteConfig struct {
	// ControlFD is a SOCK_SEQPACKET socket to the daemon: a SpawnRequest
	// per message, with its descriptors, each answered by a SpawnReply
	// (with the new process's pidfd). The zygote exits when it closes.
	ControlFD int `json:"control_fd"`
	// Fresh are directories every run gets empty (a tmpfs of its own,
	// with the mounts the layout made below them put back): /tmp and
	// the run's $HOME.
	Fresh []string `json:"fresh,omitempty"`
}

// CallInitArg, as the helper's first argument, makes it a run's first
// process in a zygote's sandbox (callinit_linux.go); a CallInit follows.
const CallInitArg = "call"

// CallInit configures a run's first process when a zygote starts it. It
// is its own small type, not a Config: decoding a Config the first time
// costs a fresh process about a third of a millisecond, and a zygote
// starts one per call.
type CallInit struct {
	// RequestFD carries the call (a Request), and the proxy's socket back.
	RequestFD int `json:"request_fd"`
	// StatusFD gets the run's Status once it is over.
	StatusFD int       `json:"status_fd"`
	Setup    CallSetup `json:"setup"`
}

// DecodeCallInit reads a CallInit, refusing what it does not know.
func DecodeCallInit(s string) (CallInit, error) {
	var c CallInit
	if err := decodeStrict([]byte(s), &c); err != nil {
		return c, fmt.Errorf("decode sandbox call config: %w", err)
	}
	if c.RequestFD < 3 || c.StatusFD < 3 || c.RequestFD == c.StatusFD {
		return c, fmt.Errorf("sandbox call config needs its request and status descriptors")
	}
	return c, nil
}

// CallSetup is what a run's first process makes in its new namespaces
// while it waits for the call.
type CallSetup struct {
	// CgroupFD, when non-zero, is the run's cgroup.procs, opened by the
	// daemon: the run's first process joins it before anything else
	// starts, then takes a cgroup namespace rooted there.
	CgroupFD int `json:"cgroup_fd,omitempty"`
	// OwnNet says the run has a network namespace of its own, whose
	// loopback is brought up.
	OwnNet bool `json:"own_net,omitempty"`
	// Fresh are the directories to renew, with the mounts to keep.
	Fresh []FreshDir `json:"fresh,omitempty"`
}

// FreshDir is a directory a run gets as an empty tmpfs, with Keep (the
// layout's mounts below it, such as a workspace in /tmp or the person's
// .gitconfig in $HOME) moved onto the new one.
type FreshDir struct {
	Path string   `json:"path"`
	Keep []string `json:"keep,omitempty"`
}

// SpawnRequest asks a zygote for one sandbox. The descriptors travel
// with it: stdin, stdout, stderr, the request socket and the status
// pipe's write end, then the run's cgroup.procs when Cgroup is set.
type SpawnRequest struct {
	// OwnNet: a network namespace of its own (the run's network is none
	// or a proxy); otherwise the run shares the host's.
	OwnNet bool `json:"own_net"`
	// Cgroup says a sixth descriptor comes: the run's cgroup.procs.
	Cgroup bool `json:"cgroup,omitempty"`
}

// LandlockSpawn asks a Landlock session's zygote for one sandbox: a
// supervisor under the zygote's rules and these fresh directories, which
// the daemon made for the run. The descriptors are a SpawnRequest's.
type LandlockSpawn struct {
	Home string `json:"home"`
	Tmp  string `json:"tmp"`
	// Cgroup says a sixth descriptor comes: the run's cgroup.procs.
	Cgroup bool `json:"cgroup,omitempty"`
}

// EncodeLandlockSpawn is a LandlockSpawn as the zygote reads it.
func EncodeLandlockSpawn(r LandlockSpawn) ([]byte, error) { return encodeSmall(r) }

// DecodeLandlockSpawn reads a LandlockSpawn, refusing what it does not
// know, and fresh directories that are not absolute clean paths.
func DecodeLandlockSpawn(b []byte) (LandlockSpawn, error) {
	var r LandlockSpawn
	if err := decodeStrict(b, &r); err != nil {
		return r, fmt.Errorf("decode spawn request: %w", err)
	}
	for _, d := range []string{r.Home, r.Tmp} {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d || d == "/" {
			return r, fmt.Errorf("spawn request with run directory %q", d)
		}
	}
	return r, nil
}

// SpawnFDs is how many descriptors a SpawnRequest carries without a
// cgroup; SpawnFDs+1 with one.
const SpawnFDs = 5

// SpawnReply answers a SpawnRequest: the new process's pidfd comes with
// it, or Error says why there is none.
type SpawnReply struct {
	Error string `json:"error,omitempty"`
}

// MaxSpawnMessage bounds a spawn message either way: both are a few
// fields of JSON.
const MaxSpawnMessage = 4096

// EncodeSpawn is a SpawnRequest as the zygote reads it.
func EncodeSpawn(r SpawnRequest) ([]byte, error) { return encodeSmall(r) }

// DecodeSpawn reads a SpawnRequest, refusing what it does not know.
func DecodeSpawn(b []byte) (SpawnRequest, error) {
	var r SpawnRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, fmt.Errorf("decode spawn request: %w", err)
	}
	return r, nil
}

// EncodeReply is a SpawnReply as the daemon reads it.
func EncodeReply(r SpawnReply) ([]byte, error) { return encodeSmall(r) }

// DecodeReply reads a SpawnReply.
func DecodeReply(b []byte) (SpawnReply, error) {
	var r SpawnReply
	if err := decodeStrict(b, &r); err != nil {
		return r, fmt.Errorf("decode spawn reply: %w", err)
	}
	return r, nil
}

func encodeSmall(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSpawnMessage {
		return nil, fmt.Errorf("spawn message of %d bytes is too large", len(b))
	}
	return b, nil
}
