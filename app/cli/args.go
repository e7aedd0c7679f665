package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// needArg takes exactly one positional argument; when it is missing the
// error names it and where to find one ("rollback needs a SESSION; see
// gatehouse sessions").
func needArg(what, where string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return userErrorf(nil, "%s needs %s; see %s", cmd.Name(), what, where)
		}
		return tooMany(cmd, what, args)
	}
}

// maxArgs takes at most n positional arguments.
func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) <= n {
			return nil
		}
		return tooMany(cmd, what, args)
	}
}

func tooMany(cmd *cobra.Command, what string, args []string) error {
	return userErrorf(nil, "%s takes one %s, not %s (%s)", cmd.Name(), strings.TrimPrefix(strings.TrimPrefix(what, "an "), "a "), plural.Count(len(args), "argument", "arguments"), termsafe.Argv(args))
}

// oneOf refuses a flag value outside its choices, naming them all; an
// empty value passes when the flag is optional.
func oneOf(flag, value string, choices []string, optional bool) error {
	if optional && value == "" {
		return nil
	}
	for _, c := range choices {
		if value == c {
			return nil
		}
	}
	return userErrorf(nil, "%s must be one of %s, not \"%s\"", flag, strings.Join(choices, ", "), termsafe.String(value))
}
