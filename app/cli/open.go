package cli

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var browser bool
		cmd := &cobra.Command{
			Use:   "open",
			Short: "Print a login link for the web UI (and open it in a browser)",
			Long: `gatehouse open asks the running daemon for a fresh login link. Its code
travels in the URL fragment, which browsers never send to servers; it signs
in once (a second use is refused) and expires after 12 hours, as does the
tab's sign-in. On a headless machine, forward the port first, e.g.
  ssh -L 7465:127.0.0.1:7465 host   and open the link on your own machine.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				var out struct {
					URL       string    `json:"url"`
					ExpiresAt time.Time `json:"expires_at"`
				}
				if err := postControl(cmd.Context(), g, "/api/v1/login-links", nil, &out); err != nil {
					return err
				}
				fmt.Fprintln(g.Stdout, out.URL)
				fmt.Fprintf(g.Stderr, "This link signs in one browser tab, once, until %s. Keep it private.\n", out.ExpiresAt.Local().Format("Mon 15:04 MST"))
				if browser && hasDisplay() {
					if err := openBrowser(out.URL); err != nil {
						fmt.Fprintf(g.Stderr, "Could not start a browser (%v); open the link yourself.\n", err)
					}
				}
				return nil
			},
		}
		cmd.Flags().BoolVar(&browser, "browser", true, "also open the link in the default browser when a display is present")
		return cmd
	})
}

func hasDisplay() bool {
	if runtime.GOOS == "darwin" {
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

func openBrowser(url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, url)
	// The URL carries a token: keep it off our own stdout and the child's.
	cmd.Stdout, cmd.Stderr = nil, nil
	return cmd.Start()
}
