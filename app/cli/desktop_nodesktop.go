//go:build !desktop

package cli

import "github.com/spf13/cobra"

// Builds without the desktop tag still know `gatehouse desktop` (the login
// autostart entry runs it); they start the headless daemon, saying so.
func init() {
	register(func(g *Globals) *cobra.Command {
		var f serveFlags
		var hidden bool
		cmd := &cobra.Command{
			Use:   "desktop",
			Short: "Run the desktop app (this build has none: starts the headless daemon)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runDefault(cmd, g, &f)
			},
		}
		f.add(cmd.Flags())
		cmd.Flags().BoolVar(&hidden, "start-hidden", false, "start with the window hidden (no effect in this build)")
		return cmd
	})
}
