package cli

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/projects"
)

// Workspace roots work with the daemon stopped too: then the config file
// is edited directly, and the next start reads it.
func init() {
	register(func(g *Globals) *cobra.Command {
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "workspaces",
			Short: "List the workspace roots: agents started in a project below one work there without a card",
			Long: `Workspaces follow the agent: a session works in the project its agent started in
(the git top of its directory). Projects below a root listed here are served at
once; any other raises a workspace card (allow "always" to add it here).`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				var roots []string
				err := withRoots(g, func(c *client.Client) error {
					var out struct {
						Roots []string `json:"roots"`
					}
					err := c.Get(cmd.Context(), "/api/v1/workspaces", nil, &out)
					roots = out.Roots
					return err
				}, func(f config.RootsFile, cfg config.Config) error {
					roots = cfg.Workspaces.Roots
					return nil
				})
				if err != nil {
					return err
				}
				return printList(g.Stdout, asJSON, roots, "No workspace roots: every project an agent starts in asks once. Add one with `gatehouse workspaces add DIR`.", "ROOT", func(r string) string { return r })
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		edit := func(use, short, method string) *cobra.Command {
			return &cobra.Command{
				Use:   use + " DIR",
				Short: short,
				Args:  cobra.ExactArgs(1),
				RunE: func(cmd *cobra.Command, args []string) error {
					dir, err := filepath.Abs(args[0])
					if err != nil {
						return err
					}
					if real, err := filepath.EvalSymlinks(dir); err == nil {
						dir = real
					}
					err = withRoots(g, func(c *client.Client) error {
						body := map[string]string{"path": dir}
						if method == "add" {
							return c.Post(cmd.Context(), "/api/v1/workspaces", body, nil)
						}
						return c.Delete(cmd.Context(), "/api/v1/workspaces?path="+url.QueryEscape(dir), nil)
					}, func(f config.RootsFile, cfg config.Config) error {
						if method == "add" {
							// As the daemon would: no root may hand an agent the
							// home directory or Gatehouse's data.
							home, _ := os.UserHomeDir()
							data, err := dataDir(g, cfg.Data)
							if err != nil {
								return err
							}
							if err := projects.Refuse(dir, home, data); err != nil {
								return err
							}
							return f.AddRoot(dir)
						}
						return f.RemoveRoot(dir)
					})
					if err != nil {
						return err
					}
					verb := "Agents started in a project below %s now work there without a card.\n"
					if method == "remove" {
						verb = "%s is no longer a workspace root; sessions already there go on.\n"
					}
					fmt.Fprintf(g.Stdout, verb, dir)
					return nil
				},
			}
		}
		cmd.AddCommand(edit("add", "Serve the projects below DIR without a card (kept in the config)", "add"),
			edit("remove", "Stop serving DIR without a card (kept in the config)", "remove"))
		return cmd
	})
}

// withRoots edits the roots through the running daemon, or in the config
// file when none runs.
func withRoots(g *Globals, viaDaemon func(*client.Client) error, direct func(config.RootsFile, config.Config) error) error {
	return viaDaemonOr(g, viaDaemon, func(cfg config.Config, _ string) error {
		path, err := configFile(g)
		if err != nil {
			return err
		}
		if err := direct(config.RootsFile{Path: path}, cfg); err != nil {
			return userErrorf(err, "%v", err)
		}
		return nil
	})
}
