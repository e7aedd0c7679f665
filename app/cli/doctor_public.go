package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/gatehouse-dev/gatehouse/app/client"
)

// printDoctorPublic is doctor's "going public" section: open exposures,
// and what reaches the running daemon that Gatehouse does not control (a
// relayed request, a program such as socat or ssh -R holding a
// connection to its port).
func printDoctorPublic(ctx context.Context, w io.Writer, dir string) {
	fmt.Fprintln(w, "GOING PUBLIC")
	out, err := getExposures(ctx, client.New(dir))
	if err != nil {
		fmt.Fprintln(w, "No daemon answered, so nothing to check: relays and tunnels are seen only while it runs.")
		return
	}
	if len(out.Exposures) == 0 {
		fmt.Fprintln(w, "No exposure is open.")
	}
	for _, x := range out.Exposures {
		printExposure(w, x)
	}
	if out.Suspected.Relayed == nil && len(out.Suspected.Processes) == 0 {
		fmt.Fprintln(w, "Nothing Gatehouse does not control reaches the daemon: no relayed request, no unknown program connected.")
		return
	}
	printSuspected(w, out.Suspected)
}
