package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/exposure"
)

func publicStartCommand(g *Globals) *cobra.Command {
	var forFlag, listenFlag string
	var asJSON, noQR bool
	cmd := &cobra.Command{
		Use:   "start [--for DURATION] [--listen ADDR]",
		Short: "Open an exposure and show its one-time link and QR code",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Refused here first, so a bad duration never reaches the daemon.
			if _, err := exposure.ParseFor(forFlag); err != nil {
				return userErrorf(nil, "%v", err)
			}
			c, err := controlClient(g)
			if err != nil {
				return err
			}
			var o exposure.Opened
			if err := c.Post(cmd.Context(), "/api/v1/exposures", map[string]string{"for": forFlag, "listen": listenFlag}, &o); err != nil {
				return apiErr(err)
			}
			if asJSON {
				o.QRSVG = ""
				return printJSON(g.Stdout, o)
			}
			printExposure(g.Stdout, o.Info)
			fmt.Fprintln(g.Stdout, "Open this link on your device. It works once, for one device, and is not shown again:")
			fmt.Fprintf(g.Stdout, "  %s\n", termsafe.String(o.Link))
			if !noQR {
				fmt.Fprint(g.Stdout, o.QRText)
			}
			fmt.Fprintln(g.Stdout, "Stop it with `gatehouse public stop`.")
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&forFlag, "for", "1h", "how long the exposure lasts (at most 24h)")
	fl.StringVar(&listenFlag, "listen", "127.0.0.1:0", "address of the exposure's own listener; off loopback it serves TLS unless a tunnel is configured")
	fl.BoolVar(&asJSON, "json", false, "print JSON (the link included)")
	fl.BoolVar(&noQR, "no-qr", false, "do not draw the QR code")
	return cmd
}
