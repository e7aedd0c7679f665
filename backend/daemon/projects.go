package daemon

import (
	"context"
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/projects"
)

// openProjects makes the projects agents may work in: the configured
// roots at once, any other after the person's workspace card.
func (d *Daemon) openProjects() *projects.Projects {
	home, _ := os.UserHomeDir()
	var store projects.Store
	if d.opts.ConfigPath != "" {
		store = config.RootsFile{Path: d.opts.ConfigPath}
	}
	return projects.New(projects.Options{
		Roots: d.opts.Workspaces, Home: home, DataDir: d.opts.DataDir,
		Asker: d.approvals, Store: store, Logger: d.logger,
	})
}

// servesWorkspace readies what keys on a workspace before a new run's
// first call there: the workspace's own policy file (which can only
// tighten, so one that does not read refuses the run) and its build cache.
func (d *Daemon) servesWorkspace(ws []string) error {
	if err := d.policy.AddWorkspaces(ws); err != nil {
		return fmt.Errorf("Gatehouse could not read this workspace's policy file, so it will not serve it until the file is fixed: %w", err)
	}
	if e := d.opts.RunEnv; e != nil && e.Cache != nil {
		e.Cache.Seed(ws)
	}
	// The workspace's secret values are known before its first result.
	d.wsSecrets.Track(context.Background(), ws)
	return nil
}
