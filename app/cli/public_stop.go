package cli

import (
	"fmt"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

func publicStopCommand(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stop [ID]",
		Short: "Stop every exposure (or the one named) at once, open connections included",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := controlClient(g)
			if err != nil {
				return err
			}
			path := "/api/v1/exposures"
			if len(args) == 1 {
				path += "/" + url.PathEscape(args[0])
			}
			var out struct {
				Stopped int `json:"stopped"`
			}
			if err := c.Delete(cmd.Context(), path, &out); err != nil {
				return apiErr(err)
			}
			if out.Stopped == 0 {
				fmt.Fprintln(g.Stdout, "No exposure was open.")
				return nil
			}
			fmt.Fprintf(g.Stdout, "Stopped %s; its link and the device's session no longer open anything.\n", plural.Count(out.Stopped, "exposure", "exposures"))
			return nil
		},
	}
}
