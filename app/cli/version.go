package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X ...cli.Version=…". The
// daemon records the same string in the audit log's system.start event, so
// `gatehouse version` tells which build wrote a given log.
var Version = "dev"

func versionLine() string { return "gatehouse " + Version }

func init() {
	register(func(g *Globals) *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "Print the version (the one the audit log records at each start)",
			Args:  cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				fmt.Fprintln(g.Stdout, versionLine())
				return nil
			},
		}
	})
}
