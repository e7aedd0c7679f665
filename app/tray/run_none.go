//go:build !linux && !(darwin && desktop)

package tray

import "context"

func Run(context.Context, Options) error { return ErrUnsupported }
