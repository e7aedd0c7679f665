package cli

import "testing"

func TestDataDirOutsideWorkspace(t *testing.T) {
	tests := []struct {
		data, ws string
		ok       bool
	}{
		{"/home/u/.local/share/gatehouse", "/home/u/src/p", true},
		{"/home/u/src/p/.gh", "/home/u/src/p", false},
		{"/home/u/src/p", "/home/u/src/p", false},
		{"/home/u/src", "/home/u/src/p", false},
		{"/home/u/src/p2", "/home/u/src/p", true},
	}
	for _, tt := range tests {
		if err := dataDirOutside(tt.data, []string{tt.ws}); (err == nil) != tt.ok {
			t.Errorf("dataDirOutside(%s, %s) = %v", tt.data, tt.ws, err)
		}
	}
}
