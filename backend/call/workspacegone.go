package call

import "os"

// workspacesExist refuses a call in a session whose workspace was deleted
// or moved since it started: its open directory would show an empty tree
// and its sandbox could not start, so the agent gets one sentence instead.
func workspacesExist(workspaces []string) error {
	for _, ws := range workspaces {
		if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
			return Errorf("The workspace %s no longer exists (deleted or moved); move it back, or start the agent again in a project", ws)
		}
	}
	return nil
}
