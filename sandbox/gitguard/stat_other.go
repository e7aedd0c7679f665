//go:build !linux

package gitguard

import (
	"fmt"
	"io/fs"
)

func statKey(st fs.FileInfo) string {
	return fmt.Sprint(st.Mode(), st.Size(), st.ModTime().UnixNano())
}
