package cli

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

func TestRunWaitsOn(t *testing.T) {
	card := func(kind approval.Kind, cwd, project string) approval.Request {
		return approval.Request{Kind: kind, Cwd: cwd, Paths: []string{project}}
	}
	tests := []struct {
		name    string
		pending []approval.Request
		want    runWait
	}{
		{"no card: the checkpoint", nil, waitCheckpoint},
		{"a card about this project", []approval.Request{card(approval.KindWorkspace, "/p/sub", "/p")}, waitCard},
		{"a card naming it as the project", []approval.Request{card(approval.KindWorkspace, "/elsewhere", "/p/sub")}, waitCard},
		{"a card about another project", []approval.Request{card(approval.KindWorkspace, "/q", "/q")}, waitCheckpoint},
		{"another kind of card here", []approval.Request{card(approval.KindCall, "/p/sub", "/p/sub")}, waitCheckpoint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := runWaitsOn(tc.pending, "/p/sub"); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}
