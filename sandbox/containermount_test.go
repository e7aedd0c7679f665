package sandbox

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

// Each value reads back, as the container CLIs read it (one CSV record),
// into the fields it was made of.
func TestContainerMount(t *testing.T) {
	for _, fields := range [][]string{
		{"type=bind", "source=/w/p", "target=/w/p", "readonly"},
		{"type=bind", "source=/w/we:ird, ü dir", "target=/w/we:ird, ü dir"},
		{"type=bind", `source=/w/a "quoted", name`, `target=/w/a "quoted", name`},
		{"type=bind", "source=/w/line\nbreak", "target=/w/line\nbreak"},
		{"type=bind", "source=/w/ lead", "target=/w/trail "},
		{"type=tmpfs", "target=/w/.env,old", "tmpfs-size=1k", "tmpfs-mode=0"},
	} {
		v := ContainerMount(fields...)
		got, err := csv.NewReader(strings.NewReader(v)).Read()
		if err != nil || !slices.Equal(got, fields) {
			t.Errorf("ContainerMount(%q) = %q, read back as %q (%v)", fields, v, got, err)
		}
	}
	if v := ContainerMount("type=bind", "source=/a", "target=/a"); v != "type=bind,source=/a,target=/a" {
		t.Errorf("a plain mount is quoted: %q", v)
	}
}
