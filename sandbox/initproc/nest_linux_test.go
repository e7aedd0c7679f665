package initproc

import (
	"reflect"
	"testing"
)

// A call over a connection gets namespaces of its own exactly when it asks
// for mounts, and the nested helper gets those mounts and the directory,
// never the program or its environment twice.
func TestNestedCallMounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
		nest bool
	}{
		{"plain", Request{Path: "/bin/true", Argv: []string{"true"}, Dir: "/ws"}, false},
		{"read-only", Request{Argv: []string{"ls"}, ReadOnly: []string{"/ws"}, HideDirs: []string{"/.gatehouse-stage"}}, true},
		{"staged", Request{Argv: []string{"sh"}, Dir: "/ws/src", Stage: []StageMount{{Target: "/ws", Lower: "/.gatehouse-lower/0", Upper: "/u", Work: "/w"}}, Protect: []string{"/ws/.envrc"}}, true},
		{"covers only", Request{Argv: []string{"sh"}, HideFiles: []string{"/ws/.env"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := needsNamespace(tc.req); got != tc.nest {
				t.Fatalf("needsNamespace = %v, want %v", got, tc.nest)
			}
			m := callMounts(tc.req)
			if m.Path != "" || m.Argv != nil || m.Env != nil || m.Net != nil {
				t.Errorf("the mounts carry the program: %+v", m)
			}
			if m.Dir != tc.req.Dir || !reflect.DeepEqual(m.Stage, tc.req.Stage) || !reflect.DeepEqual(m.Protect, tc.req.Protect) ||
				!reflect.DeepEqual(m.ReadOnly, tc.req.ReadOnly) || !reflect.DeepEqual(m.HideDirs, tc.req.HideDirs) || !reflect.DeepEqual(m.HideFiles, tc.req.HideFiles) {
				t.Errorf("callMounts = %+v, from %+v", m, tc.req)
			}
		})
	}
}

// A container's init takes no program; any other config without one is
// refused.
func TestDecodeIdle(t *testing.T) {
	if _, err := Decode(`{"idle":true}`); err != nil {
		t.Errorf("idle: %v", err)
	}
	if _, err := Decode(`{}`); err == nil {
		t.Error("a config with no program was accepted")
	}
}
