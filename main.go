// Command gatehouse is the one binary: desktop app, headless daemon, CLI,
// tray and sandbox helper. It only hands over to app/cli.
package main

import (
	"os"

	"github.com/gatehouse-dev/gatehouse/app/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
