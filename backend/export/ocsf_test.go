package export

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

// Each kind maps to its class, and each line carries the class's required
// attributes, the metadata OCSF requires, and the gatehouse.* facts.
func TestOCSFRecordCarriesRequiredFields(t *testing.T) {
	tests := []struct {
		kind, actor, payload string
		class                Class
		activity             int
	}{
		{"tool.call", "agent:claude-code", `{"tool":"run_command","args":{"argv":["ls"]}}`, ClassProcessActivity, 1},
		{"tool.result", "system", `{"tool":"run_command","outcome":{"outcome":"ok"}}`, ClassProcessActivity, 2},
		{"tool.denied", "policy", `{"tool":"run_command"}`, ClassProcessActivity, 99},
		{"exec.started", "system", `{"argv":["go","test"]}`, ClassProcessActivity, 1},
		{"hook.call", "agent:codex", `{"tool":"run_command","native":"shell"}`, ClassProcessActivity, 1},
		{"session.start", "agent:claude-code", `{"client":"claude-code"}`, ClassAuthentication, 1},
		{"session.end", "agent:claude-code", `{}`, ClassAuthentication, 2},
		{"approval.decided", "human", `{"decision":"allow","rule":"allow run_command /usr/bin/make"}`, ClassAuthorizeSession, 1},
		{"approval.requested", "system", `{}`, ClassAuthorizeSession, 99},
		{"policy.decision", "policy", `{"verdict":"deny","rule":"r1"}`, ClassAuthorizeSession, 99},
		{"network.connection", "system", `{"domain":"pkgs.example.test","port":443}`, ClassNetworkActivity, 6},
		{"network.decision", "policy", `{"domain":"pkgs.example.test","port":443,"verdict":"deny"}`, ClassNetworkActivity, 99},
		{"system.start", "system", `{"version":"1"}`, ClassApplicationLifecycle, 3},
		{"system.stop", "system", `{}`, ClassApplicationLifecycle, 4},
		{"system.kill", "human", `{}`, ClassApplicationLifecycle, 99},
		{"checkpoint.create", "system", `{}`, ClassBase, 99},
		{"export.dropped", "system", `{"count":3}`, ClassBase, 99},
		{"session.mode", "human", `{}`, ClassBase, 99},
	}
	for i, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			e := audit.Event{Seq: int64(i + 1), Time: time.Unix(1_700_000_000, 0), Session: "s_1", CallID: "c_1", Kind: tt.kind, Actor: tt.actor,
				Payload: json.RawMessage(tt.payload), Hash: "ab12", PrevHash: "cd34"}
			b, err := OCSFRecord(&e, "test", "host1")
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("line is not JSON: %v\n%s", err, b)
			}
			for _, k := range tt.class.Required() {
				if _, ok := m[k]; !ok {
					t.Errorf("%s (class %d) lacks required %q: %s", tt.kind, tt.class, k, b)
				}
			}
			if int(m["class_uid"].(float64)) != int(tt.class) || int(m["activity_id"].(float64)) != tt.activity ||
				int(m["type_uid"].(float64)) != int(tt.class)*100+tt.activity || int(m["category_uid"].(float64)) != tt.class.Category() {
				t.Errorf("class/activity/type = %v/%v/%v, want %d/%d", m["class_uid"], m["activity_id"], m["type_uid"], tt.class, tt.activity)
			}
			md := m["metadata"].(map[string]any)
			if md["version"] != OCSFVersion || md["product"].(map[string]any)["name"] != "Gatehouse" || int64(md["sequence"].(float64)) != e.Seq || md["uid"] != "ab12" {
				t.Errorf("metadata = %v", md)
			}
			un := m["unmapped"].(map[string]any)
			if int64(un["gatehouse.seq"].(float64)) != e.Seq || un["gatehouse.hash"] != "ab12" || un["gatehouse.session"] != "s_1" || un["gatehouse.kind"] != tt.kind {
				t.Errorf("unmapped = %v", un)
			}
			if int64(m["time"].(float64)) != e.Time.UnixMilli() {
				t.Errorf("time = %v", m["time"])
			}
		})
	}
}
