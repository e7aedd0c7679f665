package initproc

import (
	"strings"
	"testing"
)

// A helper older than the daemon must refuse what it does not know
// rather than skip it: an unknown field may be a confinement step.
func TestDecodeRefusesUnknownFields(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"a request", `{"path":"/bin/true","argv":["true"],"read_only":["/w"]}`, ""},
		// Runs join their cgroup when their sandbox starts, not with the call.
		{"a request naming a cgroup descriptor", `{"path":"/bin/true","argv":["true"],"cgroup_fd":4}`, "unknown field"},
		{"a request with a field from a newer daemon", `{"path":"/bin/true","argv":["true"],"seal_everything":true}`, "unknown field"},
		{"trailing data", `{"path":"/bin/true","argv":["true"]} {}`, "trailing"},
		{"not JSON", `{"path":`, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRequest([]byte(tt.in))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("DecodeRequest = %v, want %q", err, tt.err)
			}
		})
	}
	if _, err := Decode(`{"request_fd":3,"drop_caps":true,"landlock_v9":{}}`); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Fatalf("Decode of a config from a newer daemon = %v, want an unknown-field error", err)
	}
	if _, err := Decode(`{"zygote":{"control_fd":3,"fresh":["/tmp"]},"layout":[{"kind":"tmpfs","dst":"/tmp"}],"path":"","argv":null}`); err != nil {
		t.Fatalf("Decode of bwrap's zygote config: %v", err)
	}
	if _, err := Decode(`{"request_fd":3,"layout":[{"kind":"tmpfs","dst":"/tmp"}]}`); err == nil || !strings.Contains(err.Error(), "no zygote") {
		t.Fatalf("Decode of a layout for a helper that is no zygote = %v, want a refusal", err)
	}
	if _, err := DecodeCallInit(`{"request_fd":3,"status_fd":4,"setup":{"own_net":true,"seal":true}}`); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Fatalf("DecodeCallInit of a config from a newer daemon = %v, want an unknown-field error", err)
	}
	if _, err := DecodeCallInit(`{"request_fd":3,"status_fd":3,"setup":{}}`); err == nil {
		t.Fatal("DecodeCallInit took the same descriptor for the request and the status")
	}
}

// A layout step of a kind the helper does not know fails the sandbox:
// skipped, it could leave in sight what the daemon meant to hide.
func TestDecodeRefusesUnknownMountKinds(t *testing.T) {
	for _, tt := range []struct{ kind, err string }{
		{"ro-bind", ""}, {"bind", ""}, {"dev-bind", ""}, {"tmpfs", ""}, {"remount-ro", ""}, {"hide-file", ""},
		{"overlay", "unknown mount kind"}, {"", "unknown mount kind"}, {"RO-BIND", "unknown mount kind"},
	} {
		c, err := Decode(`{"zygote":{"control_fd":3},"layout":[{"kind":"` + tt.kind + `","src":"/usr","dst":"/usr"}]}`)
		if tt.err == "" && (err != nil || c.Layout[0].Kind != MountKind(tt.kind)) ||
			tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("kind %q: Decode = %v, want %q", tt.kind, err, tt.err)
		}
	}
}

// The warm-up decodes, and reaches every nested type of a Request, or
// it warms nothing.
func TestWarmRequestDecoderDecodes(t *testing.T) {
	if err := warmRequestDecoder(); err != nil {
		t.Fatal(err)
	}
	r, _ := DecodeRequest([]byte(warmRequest))
	if len(r.Rlimits) == 0 || r.Net == nil || len(r.Stage) == 0 || len(r.Env) == 0 {
		t.Fatalf("the warm-up request leaves nested types cold: %+v", r)
	}
}

// A Landlock supervisor forks only a target it confines, and a Landlock
// zygote grants only the run directories it is told, as absolute clean
// paths: anything else is refused before a run starts.
func TestDecodeLandlockZygoteMessages(t *testing.T) {
	configs := []struct {
		name, in, err string
	}{
		{"a supervisor forking a confined target", `{"supervise":true,"fork_target":true,"request_fd":3,"landlock":{"ro_dirs":["/usr"]},"path":"","argv":null}`, ""},
		{"a target forked without rules", `{"supervise":true,"fork_target":true,"request_fd":3,"path":"","argv":null}`, "does not confine"},
		{"a target forked without a supervisor", `{"fork_target":true,"request_fd":3,"landlock":{},"path":"","argv":null}`, "does not confine"},
		{"a target forked with no call to wait for", `{"supervise":true,"fork_target":true,"landlock":{},"path":"/bin/true","argv":["true"]}`, "does not confine"},
		{"a Landlock zygote", `{"zygote":{"control_fd":3},"landlock":{"ro_dirs":["/usr"]},"grace":1000000000,"path":"","argv":null}`, ""},
	}
	for _, tt := range configs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("Decode = %v, want %q", err, tt.err)
			}
		})
	}
	spawns := []struct {
		name, in, err string
	}{
		{"a run's directories", `{"home":"/tmp/r/home","tmp":"/tmp/r/tmp","cgroup":true}`, ""},
		{"a relative home", `{"home":"r/home","tmp":"/tmp/r/tmp"}`, "run directory"},
		{"the root as tmp", `{"home":"/tmp/r/home","tmp":"/"}`, "run directory"},
		{"an unclean path", `{"home":"/tmp/r/../../etc","tmp":"/tmp/r/tmp"}`, "run directory"},
		{"no tmp", `{"home":"/tmp/r/home"}`, "run directory"},
		{"a field from a newer daemon", `{"home":"/tmp/r/home","tmp":"/tmp/r/tmp","extra_rw":["/"]}`, "unknown field"},
	}
	for _, tt := range spawns {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeLandlockSpawn([]byte(tt.in))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("DecodeLandlockSpawn = %v, want %q", err, tt.err)
			}
		})
	}
}

// A first process refuses a Root with a step or a field it does not know
// (it could be one that hides something), or with no command to start.
func TestDecodeRoot(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"a root", `{"steps":[{"kind":"ro-bind","src":"/usr","dst":"/usr","try":true},{"kind":"proc","dst":"/proc"},{"kind":"dev","dst":"/dev"},{"kind":"symlink","src":"usr/bin","dst":"/bin"},{"kind":"remount-ro","dst":"/d"}],"dir":"/w","argv":["/bin/true"],"env":[]}`, ""},
		{"a step kind from a newer gatehouse", `{"steps":[{"kind":"overlay","dst":"/w"}],"dir":"/w","argv":["/bin/true"]}`, "unknown root step kind"},
		{"the zygote's file cover, which a root spells as a bind", `{"steps":[{"kind":"hide-file","dst":"/w/.env"}],"dir":"/w","argv":["/bin/true"]}`, "unknown root step kind"},
		{"a field from a newer gatehouse", `{"steps":[],"dir":"/w","argv":["/bin/true"],"seal":true}`, "unknown field"},
		{"no command", `{"steps":[],"dir":"/w"}`, "no command"},
		{"no working directory", `{"steps":[],"argv":["/bin/true"]}`, "no working directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRoot([]byte(tt.in))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("DecodeRoot = %v, want %q", err, tt.err)
			}
		})
	}
}
