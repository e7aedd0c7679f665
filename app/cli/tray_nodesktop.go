//go:build !desktop

package cli

import "github.com/spf13/cobra"

func init() {
	register(func(g *Globals) *cobra.Command {
		return &cobra.Command{
			Use:   "tray",
			Short: "Show the tray icon with the kill switch (needs a desktop build)",
			Args:  cobra.ArbitraryArgs,
			RunE: func(*cobra.Command, []string) error {
				return userErrorf(nil, "this build has no tray; build Gatehouse with `make build` to get it")
			},
		}
	})
}
