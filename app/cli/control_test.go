package cli

import (
	"strings"
	"testing"
)

func TestPrintList(t *testing.T) {
	row := func(s string) string { return s + "\t" + strings.ToUpper(s) }
	for _, c := range []struct {
		name   string
		asJSON bool
		items  []string
		want   string
	}{
		{"json", true, []string{"a"}, "[\n  \"a\"\n]\n"},
		{"none", false, nil, "Nothing here.\n"},
		{"table", false, []string{"a", "bbb"}, "NAME  UPPER\na     A\nbbb   BBB\n"},
	} {
		var b strings.Builder
		if err := printList(&b, c.asJSON, c.items, "Nothing here.", "NAME\tUPPER", row); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b.String(), c.want)
		}
	}
}
