package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

func TestRunChangesText(t *testing.T) {
	many := make([]snapshot.Change, 25)
	for i := range many {
		many[i] = snapshot.Change{Root: "/p", Path: fmt.Sprintf("f%02d", i), Kind: snapshot.Added, NewKind: snapshot.KindFile}
	}
	tests := []struct {
		name    string
		changes []snapshot.Change
		want    []string
	}{
		{"nothing", nil, []string{"Nothing changed in the project while this run lasted (run-1)"}},
		{"one of each", []snapshot.Change{
			{Root: "/p", Path: "gen", Kind: snapshot.Added, NewKind: snapshot.KindDir},
			{Root: "/p", Path: "old", Kind: snapshot.Deleted, OldKind: snapshot.KindFile},
			{Root: "/p", Path: "notes.txt", Kind: snapshot.Modified, OldKind: snapshot.KindFile, NewKind: snapshot.KindFile},
		}, []string{"3 paths in /p; the agent's own writes, its calls' changes below and any edit made meanwhile outside Gatehouse alike\n", "  added     gen/\n", "  deleted   old\n", "  modified  notes.txt\n", "Undo all of it with: gatehouse rollback s_1 --call run-1 (add --dry-run"}},
		{"two projects", []snapshot.Change{
			{Root: "/p", Path: "a", Kind: snapshot.Added, NewKind: snapshot.KindFile},
			{Root: "/q", Path: "b", Kind: snapshot.Added, NewKind: snapshot.KindFile},
		}, []string{"2 paths in /p, /q;", "  added     /p/a\n", "  added     /q/b\n"}},
		{"more than named", many, []string{"25 paths", "  added     f19\n", "  … and 5 more\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runChangesText("s_1", "run-1", tc.changes)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}
