package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func publicStatusCommand(g *Globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List open exposures, and relays or programs reaching the daemon that Gatehouse does not control",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := controlClient(g)
			if err != nil {
				return err
			}
			out, err := getExposures(cmd.Context(), c)
			if err != nil {
				return apiErr(err)
			}
			if asJSON {
				return printJSON(g.Stdout, out)
			}
			if len(out.Exposures) == 0 {
				fmt.Fprintln(g.Stdout, "No exposure is open; `gatehouse public start` opens one.")
			}
			for _, x := range out.Exposures {
				printExposure(g.Stdout, x)
			}
			printSuspected(g.Stdout, out.Suspected)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
