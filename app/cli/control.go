package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gatehouse-dev/gatehouse/backend/apiclient"
)

// client returns a control API client for the data dir in effect.
func client(g *Globals) (*apiclient.Client, error) {
	d, err := dataDir(g, "")
	if err != nil {
		return nil, err
	}
	return apiclient.New(d), nil
}

// apiErr turns client errors into one plain sentence for the terminal.
func apiErr(err error) error {
	if err == nil {
		return nil
	}
	var ae *apiclient.APIError
	if errors.As(err, &ae) {
		return userErrorf(err, "%s", ae.Msg)
	}
	if errors.Is(err, apiclient.ErrNoDaemon) {
		return userErrorf(err, "%s", apiclient.ErrNoDaemon.Error())
	}
	return err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
