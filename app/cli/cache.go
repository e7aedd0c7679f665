package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/buildcache"
	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// The build cache works with the daemon stopped too: then this process
// opens it itself (nothing can be using it).
func init() {
	register(func(g *Globals) *cobra.Command {
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "cache",
			Short: "Show the build caches sandboxed commands keep per workspace",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				var u buildcache.Usage
				err := withCache(g, func(c *client.Client) error {
					return c.Get(cmd.Context(), "/api/v1/cache", nil, &u)
				}, func(bc *buildcache.Cache) (err error) {
					u, err = bc.Usage()
					return err
				})
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(g.Stdout, u)
				}
				fmt.Fprintf(g.Stdout, "Build cache %s: %s of %s\n", u.Dir, mib(u.Bytes), mib(u.LimitBytes))
				tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "WORKSPACE\tSIZE\tLAST USED")
				for _, w := range u.Workspaces {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", w.Workspace, mib(w.Bytes), w.LastUsed.Format(time.DateTime))
				}
				return tw.Flush()
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		var ws string
		clear := &cobra.Command{
			Use:   "clear",
			Short: "Empty the build cache of one workspace (--workspace) or of all",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if ws != "" {
					abs, err := filepath.Abs(ws)
					if err != nil {
						return err
					}
					if real, err := filepath.EvalSymlinks(abs); err == nil {
						abs = real
					}
					ws = abs
				}
				var cleared []string
				err := withCache(g, func(c *client.Client) error {
					var out struct {
						Cleared []string `json:"cleared"`
					}
					err := c.Post(cmd.Context(), "/api/v1/cache/clear", map[string]string{"workspace": ws}, &out)
					cleared = out.Cleared
					return err
				}, func(bc *buildcache.Cache) (err error) {
					cleared, err = bc.Clear(ws)
					return err
				})
				if err != nil {
					return err
				}
				switch {
				case len(cleared) == 0 && ws != "":
					fmt.Fprintf(g.Stdout, "%s has no build cache.\n", ws)
				case ws != "":
					fmt.Fprintf(g.Stdout, "Cleared the build cache of %s.\n", ws)
				default:
					fmt.Fprintf(g.Stdout, "Cleared the build caches of %s.\n", plural.Count(len(cleared), "workspace", "workspaces"))
				}
				return nil
			},
		}
		clear.Flags().StringVar(&ws, "workspace", "", "clear this workspace's cache only")
		cmd.AddCommand(clear)
		return cmd
	})
}

// withCache asks the running daemon, or, when none runs, opens the
// cache in the data dir directly.
func withCache(g *Globals, viaDaemon func(*client.Client) error, direct func(*buildcache.Cache) error) error {
	return viaDaemonOr(g, viaDaemon, func(cfg config.Config, data string) error {
		if _, err := os.Stat(data); err != nil {
			return userErrorf(err, "there is no Gatehouse data directory at %s; pass the --data the daemon uses", data)
		}
		bc, err := buildcache.Open(buildcache.Options{Dir: filepath.Join(data, "cache"), LimitBytes: cfg.Sandbox.CacheMiB << 20})
		if err != nil {
			return userErrorf(err, "%v", err)
		}
		if err := direct(bc); err != nil {
			return userErrorf(err, "%v", err)
		}
		return nil
	})
}

func mib(b int64) string {
	if b < 10<<20 {
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d MiB", b>>20)
}
