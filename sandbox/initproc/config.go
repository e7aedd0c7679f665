package initproc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Entry is the hidden subcommand name that runs Main.
const Entry = "__sandbox-init"

// Rlimit is one resource limit to set before exec.
type Rlimit struct {
	Resource int    `json:"r"`
	Cur      uint64 `json:"c"`
	Max      uint64 `json:"m"`
}

// Landlock are the rules applied before exec. Paths that do not exist are
// skipped.
type Landlock struct {
	// ListDirs may only be listed (their entries get their own rules).
	ListDirs []string `json:"list_dirs,omitempty"`
	RODirs   []string `json:"ro_dirs,omitempty"`
	ROFiles  []string `json:"ro_files,omitempty"`
	RWDirs   []string `json:"rw_dirs,omitempty"`
	RWFiles  []string `json:"rw_files,omitempty"`
	// GitDirs may gain and lose entries, and their files may be written,
	// anywhere beneath; nothing beneath may be executed or made a link
	// unless another rule says so. Landlock cannot keep .git/config and
	// .git/hooks read-only below them: the daemon watches those instead.
	GitDirs []string `json:"git_dirs,omitempty"`
}

// Config is everything the helper needs; it travels as JSON in argv so
// the target's environment stays exactly the allowlist.
type Config struct {
	// Supervise keeps this process as parent and subreaper of the run:
	// it runs the rest of the chain as a child and, on SIGTERM or when
	// the target exits, kills every remaining descendant.
	Supervise bool `json:"supervise,omitempty"`
	// ForkTarget, when supervising a Landlock run (Landlock and RequestFD
	// set), confines a thread of the supervisor and starts the target
	// from it, rather than through a second helper (forktarget_linux.go).
	ForkTarget bool `json:"fork_target,omitempty"`
	// ZygotePID is the pid of the zygote that started this supervisor:
	// once it is no longer the parent, the zygote is gone and the
	// supervisor must start nothing (its stop signal may not be handled
	// yet).
	ZygotePID int `json:"zygote_pid,omitempty"`
	// Grace is the SIGTERM-to-SIGKILL wait when supervising.
	Grace time.Duration `json:"grace,omitempty"`
	// CgroupProcs is a cgroup.procs file to join first.
	CgroupProcs string `json:"cgroup,omitempty"`
	// CgroupFD, when non-zero, is a cgroup.procs the daemon opened, to
	// join first (a run a zygote started).
	CgroupFD int `json:"cgroup_fd,omitempty"`
	// StatusFD, when non-zero, receives a JSON Status when supervising.
	StatusFD int `json:"status_fd,omitempty"`
	// RequestFD, when non-zero, is a pipe carrying the Request: the helper
	// was started ahead of the call and finishes the sandbox once it
	// arrives. The Request's fields replace Path, Argv, Rlimits and the
	// environment.
	RequestFD int `json:"request_fd,omitempty"`
	// Connect, when supervising, is a unix socket to dial for the call:
	// the daemon sends the Request with the run's stdin, stdout, stderr
	// and status descriptors, and closing the connection stops the run.
	// Used where the helper cannot inherit pipes (a container's exec).
	Connect string `json:"connect,omitempty"`
	// Terminal says the run shares the person's terminal (a whole agent,
	// `gatehouse run` on Landlock): the terminal filter is installed before
	// exec (notify.ApplyTerminal), and a supervisor leaves the terminal's
	// Ctrl-C to the target rather than ending the run on it.
	Terminal bool `json:"terminal,omitempty"`
	// DropCaps drops every capability (bounding and ambient sets too)
	// before exec: a helper in a user namespace of its own keeps them only
	// to mount the Request's protected paths.
	DropCaps bool `json:"drop_caps,omitempty"`
	// Layout is a zygote's fixed layout, cloned from the host's root at
	// HostRoot before it starts any sandbox (see layout_linux.go).
	Layout   []LayoutMount `json:"layout,omitempty"`
	Rlimits  []Rlimit      `json:"rlimits,omitempty"`
	Landlock *Landlock     `json:"landlock,omitempty"`
	// Net is the run's network when it is known at start (a supervisor's
	// next stage); a Request's Net replaces it.
	Net *Net `json:"net,omitempty"`
	// NotifyFD, when non-zero, is a socket to the supervising helper: a
	// run with a proxy in the host's namespace hands it the seccomp
	// listener that decides each connect (notify.ServeConnects).
	NotifyFD int `json:"notify_fd,omitempty"`
	// GuardFD, when non-zero, is a socket to the supervising helper: the
	// target's stage installs the creation guard's filter last and hands
	// its listener over, and the supervisor decides the run's creating
	// calls (package notify).
	GuardFD int `json:"guard_fd,omitempty"`
	// Mounts, in a helper its supervisor started for a call over a
	// connection (a container's run), are the call's mounts: the helper
	// runs in a user and mount namespace of its own, makes them there,
	// and enters Mounts.Dir after (see nest_linux.go).
	Mounts *Request `json:"mounts,omitempty"`
	// Idle makes the helper a container's first process: it keeps the
	// container up, lets the kernel reap orphans, cannot be looked into
	// through /proc by the runs, and exits on SIGTERM.
	Idle bool `json:"idle,omitempty"`
	// Zygote makes the helper a session's zygote (see zygote.go): it
	// makes Layout, then starts the session's sandboxes; with Landlock
	// set, a Landlock session's (landlockzygote_linux.go), whose runs'
	// supervisors get these rules and Grace.
	Zygote *ZygoteConfig `json:"zygote,omitempty"`
	// Path and Argv are the program to exec.
	Path string   `json:"path"`
	Argv []string `json:"argv"`
}

// Request is the part of a run known only when the call arrives.
type Request struct {
	Path    string   `json:"path"`
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir,omitempty"`
	Rlimits []Rlimit `json:"rlimits,omitempty"`
	// ReadOnly are workspaces made read-only, with every mount below
	// them, before the other mounts: the run only reads.
	ReadOnly []string `json:"read_only,omitempty"`
	// Protect are paths covered with read-only bind mounts before exec:
	// the protected names of a writable workspace, including placeholders
	// for names that do not exist yet where Uncreatable is not used.
	Protect []string `json:"protect,omitempty"`
	// Uncreatable are protected names that do not exist. The run's first
	// process makes every new directory entry of the run itself and
	// refuses these (notify.Guard), so no placeholder stands in
	// the workspace. A zygote's runs and a supervising helper's calls
	// honour it; a helper that cannot refuses the call.
	Uncreatable []string `json:"uncreatable,omitempty"`
	// Writable are directories inside a protected one bound writable
	// again: each submodule's git dir in the read-only .git/modules.
	Writable []string `json:"writable,omitempty"`
	// Pin are directories bound onto themselves, flags unchanged: a mount
	// point cannot be renamed, so the directories holding hidden secrets
	// stay where the next sandbox looks for them.
	Pin []string `json:"pin,omitempty"`
	// HideFiles are covered with an empty read-only file and HideDirs
	// with an empty read-only directory: the workspace's secrets.
	HideFiles []string `json:"hide_files,omitempty"`
	HideDirs  []string `json:"hide_dirs,omitempty"`
	// Net is the run's network (see Net); nil leaves it as it is.
	Net *Net `json:"net,omitempty"`
	// Stage are overlays mounted over workspaces before every other
	// mount, so every write of the run lands in an upper layer.
	Stage []StageMount `json:"stage,omitempty"`
	// PassThrough are directories of the real workspace bound over the
	// overlays, writable: build outputs written in place.
	PassThrough []string `json:"pass_through,omitempty"`
	// StageNonce names this run in the line the helper prints when it
	// cannot mount the overlays: the command never sees the Request, so
	// one that prints the same line is not taken for the helper.
	StageNonce string `json:"stage_nonce,omitempty"`
}

// StageMount is one overlay of a staged run.
type StageMount struct {
	Target string `json:"target"` // the workspace, which is also the lower layer
	Upper  string `json:"upper"`
	Work   string `json:"work"`
	// Lower, when set, is the lower layer instead of Target: a
	// container's bind of the workspace with nothing mounted below it
	// (an overlay cannot take a layer with locked mounts below it).
	Lower string `json:"lower,omitempty"`
}

// CallFDs is how many descriptors travel with a Request over Connect:
// stdin, stdout, stderr and status, in that order.
const CallFDs = 4

// MaxRequestBytes bounds a Request read from a socket.
const MaxRequestBytes = 64 << 20

// Status is what a supervising helper reports about the target.
type Status struct {
	Exit   int    `json:"exit"`
	Signal int    `json:"signal,omitempty"`
	Error  string `json:"error,omitempty"`
	// Started, in a message of its own ahead of the final one, says the
	// target is about to start: a run that ends with no final message was
	// stopped from outside, and without this one, before anything of the
	// call ran.
	Started bool `json:"started,omitempty"`
	// Unused: the sandbox was stopped (its zygote died) before its call
	// started; nothing of it ran, and another sandbox may run it.
	Unused bool `json:"unused,omitempty"`
	// Left names the programs the target left running when it exited
	// (what it started in the background); the run ended them with it.
	Left []string `json:"left,omitempty"`
}

// Encode turns c into the helper's single argument.
func (c Config) Encode() (string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encode sandbox helper config: %w", err)
	}
	return string(b), nil
}

// Decode parses the helper's argument.
func Decode(s string) (Config, error) {
	var c Config
	if err := decodeStrict([]byte(s), &c); err != nil {
		return c, fmt.Errorf("decode sandbox helper config: %w", err)
	}
	if c.RequestFD == 0 && c.Connect == "" && !c.Idle && c.Zygote == nil && (c.Path == "" || len(c.Argv) == 0) {
		return c, fmt.Errorf("sandbox helper config has no program")
	}
	if c.ForkTarget && (!c.Supervise || c.Landlock == nil || c.RequestFD == 0) {
		// Its target's thread would run unconfined.
		return c, fmt.Errorf("sandbox helper config forks a target it does not confine")
	}
	if len(c.Layout) > 0 && c.Zygote == nil {
		// Only a zygote makes a layout; anything else would run without.
		return c, fmt.Errorf("sandbox helper config has a layout but is no zygote")
	}
	return c, nil
}

// NestFailed starts the Status error of a call whose namespaces could not
// be made: the target never ran, and the container cannot run calls this
// way at all (a kernel or runtime that refuses user namespaces).
const NestFailed = "cannot give the run namespaces of its own"

// ExitSetupFailed is the helper's exit status when it could not confine
// the target; the target never ran.
const ExitSetupFailed = 125

// DecodeRequest reads a Request as the daemon encoded it.
func DecodeRequest(b []byte) (Request, error) {
	var r Request
	err := decodeStrict(b, &r)
	return r, err
}

// warmRequestDecoder decodes a Request with every nested type once, while
// a sandbox built ahead waits for its call: encoding/json builds each
// type's decoder on first use, about a fifth of a millisecond that the
// call would otherwise wait for.
// A literal, not an encoded Request: building the encoder would cost the
// helper as much again.
func warmRequestDecoder() error {
	_, err := DecodeRequest([]byte(warmRequest))
	return err
}

const warmRequest = `{"path":"/","argv":["/"],"env":["A=B"],"rlimits":[{"r":0,"c":0,"m":0}],` +
	`"net":{"mode":"none"},"stage":[{"target":"/","upper":"/","work":"/"}]}`

// decodeStrict refuses fields it does not know: a helper older than the
// daemon (a stale sibling binary) must fail, not skip a confinement step
// it has never heard of.
func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data")
	}
	return nil
}
