package cli

import (
	"errors"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/config"
)

// viaDaemonOr runs a command through the running daemon, or, when none
// runs, directly on what it would have used (the config, the data dir):
// the commands that work with the daemon stopped too.
func viaDaemonOr(g *Globals, viaDaemon func(*client.Client) error, direct func(cfg config.Config, data string) error) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	data, err := dataDir(g, cfg.Data)
	if err != nil {
		return err
	}
	err = viaDaemon(client.New(data))
	if !errors.Is(err, client.ErrNoDaemon) {
		return apiErr(err)
	}
	return direct(cfg, data)
}
