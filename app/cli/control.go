package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

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

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
