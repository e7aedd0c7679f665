package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/app/client"
)

// controlClient returns a control API client for the data dir in effect.
func controlClient(g *Globals) (*client.Client, error) {
	d, err := dataDir(g, "")
	if err != nil {
		return nil, err
	}
	return client.New(d), nil
}

// getControl and postControl make one request of the daemon's control API
// for a command, a failure worded for the terminal.
func getControl(ctx context.Context, g *Globals, path string, out any) error {
	c, err := controlClient(g)
	if err != nil {
		return err
	}
	return apiErr(c.Get(ctx, path, nil, out))
}

func postControl(ctx context.Context, g *Globals, path string, in, out any) error {
	c, err := controlClient(g)
	if err != nil {
		return err
	}
	return apiErr(c.Post(ctx, path, in, out))
}

// apiErr turns client errors into one plain sentence for the terminal.
func apiErr(err error) error {
	if err == nil {
		return nil
	}
	var ae *client.APIError
	if errors.As(err, &ae) {
		return userErrorf(err, "%s", ae.Msg)
	}
	if errors.Is(err, client.ErrNoDaemon) {
		return userErrorf(err, "%s", client.ErrNoDaemon.Error())
	}
	return err
}

// printJSON writes v as indented JSON. Agents control many of its strings,
// so the characters a terminal would act on are escaped (the JSON decodes
// to the same value).
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(termsafe.JSON(b), '\n'))
	return err
}

// printList is how a command lists things: items as JSON with --json;
// else the sentence none when there are none; else a table under header
// (tab-separated columns) with row's line for each item.
func printList[T any](w io.Writer, asJSON bool, items []T, none, header string, row func(T) string) error {
	if asJSON {
		return printJSON(w, items)
	}
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, none)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, it := range items {
		fmt.Fprintln(tw, row(it))
	}
	return tw.Flush()
}
