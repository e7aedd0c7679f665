package sandbox

import "os"

// HiddenIn splits the run's hidden paths that lie in workspace w into
// files and directories. A staged run's overlay shows the workspace
// without the mounts that hid them, so its helper covers them again.
func (p *Prepared) HiddenIn(w string) (files, dirs []string) {
	for _, h := range p.Hidden {
		st, err := os.Lstat(h)
		switch {
		case err != nil || !Within(h, w):
		case st.IsDir():
			dirs = append(dirs, h)
		default:
			files = append(files, h)
		}
	}
	return files, dirs
}
