package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// openAudit opens the audit store straight from the data dir, so audit
// commands work with the daemon stopped.
func openAudit(ctx context.Context, g *Globals) (*audit.Store, func(), error) {
	dir, err := dataDir(g, "")
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(dir, datadir.DBFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, userErrorf(err, "no Gatehouse database at %s; pass the --data directory the daemon uses", path)
	}
	logger := g.Logger()
	sqlDB, err := db.Open(ctx, path, logger)
	if err != nil {
		return nil, nil, userErrorf(err, "cannot open %s: %v", path, err)
	}
	store, err := audit.Open(ctx, sqlDB, logger, audit.Options{})
	if err != nil {
		sqlDB.Close()
		return nil, nil, userErrorf(err, "cannot read the audit log: %v", err)
	}
	return store, func() { store.Close(); sqlDB.Close() }, nil
}

func init() {
	register(func(g *Globals) *cobra.Command {
		cmd := &cobra.Command{Use: "audit", Short: "Check or export the tamper-evident audit log"}
		var file string
		verify := &cobra.Command{
			Use:   "verify",
			Short: "Check the audit hash chain; names the first bad row",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				var rep audit.Report
				if file != "" {
					f, err := os.Open(file)
					if err != nil {
						return userErrorf(err, "cannot open %s", file)
					}
					defer f.Close()
					rep, err = audit.VerifyJSONL(bufio.NewReader(f))
					if err != nil {
						return userErrorf(err, "cannot verify %s: %v", file, err)
					}
				} else {
					store, done, err := openAudit(cmd.Context(), g)
					if err != nil {
						return err
					}
					defer done()
					rep, err = store.Verify(cmd.Context())
					if err != nil {
						return userErrorf(err, "cannot verify the audit log: %v", err)
					}
				}
				fmt.Fprintln(g.Stdout, rep.String())
				if !rep.OK {
					return exitCodeError{code: 1}
				}
				// A chain proves what it holds, not that nothing was cut off
				// its end: say what to compare.
				if file != "" {
					fmt.Fprintf(g.Stdout, "An export cut short still verifies. Compare its last event (seq %d, hash %s) with `gatehouse audit verify` on the live database, which prints the newest hash.\n", rep.LastSeq, rep.LastHash)
				} else {
					fmt.Fprintf(g.Stdout, "Last hash %s (seq %d): keep it to check later that nothing after seq %d was removed, or to compare with an export.\n", rep.LastHash, rep.LastSeq, rep.LastSeq)
				}
				return nil
			},
		}
		verify.Flags().StringVar(&file, "file", "", "verify an exported JSONL file instead of the database")

		var out, sess, kind string
		export := &cobra.Command{
			Use:   "export",
			Short: "Write the audit log as JSON Lines (hashes included, verifiable offline)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				k, err := audit.ParseKindFilter(kind)
				if err != nil {
					return userErrorf(nil, "--kind %v", err)
				}
				store, done, err := openAudit(cmd.Context(), g)
				if err != nil {
					return err
				}
				defer done()
				toFile := out != "" && out != "-"
				var w io.Writer = g.Stdout
				var f *os.File
				if toFile {
					f, err = os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
					if err != nil {
						return userErrorf(err, "cannot write %s: %v", out, err)
					}
					defer f.Close()
					w = f
				}
				st, err := store.Export(cmd.Context(), w, audit.Filter{Session: sess, Kind: k})
				if err != nil {
					return userErrorf(err, "export failed: %v", err)
				}
				if !toFile {
					return nil
				}
				if err := f.Close(); err != nil {
					return userErrorf(err, "cannot finish writing %s: %v", out, err)
				}
				if st.Events == 0 {
					fmt.Fprintf(g.Stderr, "Wrote %s: no events matched, so it is empty.\n", out)
					return nil
				}
				fmt.Fprintf(g.Stderr, "Wrote %s: %s, %s, up to seq %d, last hash %s.\n", out, plural.Count(st.Events, "event", "events"), plural.Count(st.Bytes, "byte", "bytes"), st.LastSeq, st.LastHash)
				if sess == "" && k == "" {
					fmt.Fprintf(g.Stderr, "Check it with: gatehouse audit verify --file %s\n", out)
				}
				return nil
			},
		}
		export.Flags().StringVarP(&out, "output", "o", "-", "file to write (default stdout)")
		export.Flags().StringVar(&sess, "session", "", "only this session")
		export.Flags().StringVar(&kind, "kind", "", `only this kind ("tool." for a whole family)`)
		cmd.AddCommand(verify, export)
		return cmd
	})
}
