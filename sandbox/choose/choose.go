// Package choose turns a configured backend name into a sandbox.Backend.
// "auto" means bubblewrap, else Landlock on Linux, Seatbelt on macOS.
// "none" is only ever used when named, and a configured backend that is
// missing is an error (fail closed), never a silent fallback.
package choose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/bwrap"
	"github.com/gatehouse-dev/gatehouse/sandbox/container"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/seatbelt"
	"github.com/gatehouse-dev/gatehouse/sandbox/unconfined"
)

// Names are the accepted backend names.
var Names = []string{"auto", bwrap.Name, landlock.Name, seatbelt.Name, container.Name, unconfined.Name}

// Options carry per-backend settings.
type Options struct {
	Helper string // binary implementing __sandbox-init; default os.Executable
	Home   string // real $HOME; default os.UserHomeDir
	Bwrap  string
	// Shown is a directory of the daemon's own for files a sandbox shows
	// in place of the person's (bwrap.Options.Shown); "" for a new
	// temporary one.
	Shown     string
	Container container.Options
}

// container is the container backend's options, with the person's home
// and the directory for what a sandbox shows in its place.
func (o Options) container(log *slog.Logger) container.Options {
	co := o.Container
	co.Logger = log
	if co.Home == "" {
		co.Home = o.Home
		if co.Home == "" {
			co.Home, _ = os.UserHomeDir()
		}
	}
	if co.Shown == "" {
		co.Shown = o.Shown
	}
	return co
}

// ErrUnknown is an unrecognised backend name.
var ErrUnknown = errors.New("unknown sandbox backend")

// New returns the backend called name.
func New(ctx context.Context, name string, o Options, log *slog.Logger) (sandbox.Backend, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch name {
	case "", "auto":
		return auto(ctx, o, log)
	case bwrap.Name:
		b, err := bwrap.New(ctx, bwrap.Options{Bwrap: o.Bwrap, Helper: o.Helper, Home: o.Home, Shown: o.Shown, Logger: log})
		return fixHint(b, err, "install bubblewrap (apt install bubblewrap) or set the sandbox backend to landlock")
	case landlock.Name:
		b, err := landlock.New(landlock.Options{Helper: o.Helper, Home: o.Home, Logger: log})
		return fixHint(b, err, "use a kernel with Landlock enabled, or set the sandbox backend to bwrap or container")
	case seatbelt.Name:
		b, err := seatbelt.New(seatbelt.Options{Helper: o.Helper, Home: o.Home, Logger: log})
		return fixHint(b, err, "seatbelt works only on macOS; set the sandbox backend to auto")
	case container.Name:
		b, err := container.New(ctx, o.container(log))
		return fixHint(b, err, "install docker or podman and set a container image, or set the sandbox backend to auto")
	case unconfined.Name:
		log.Warn("sandbox: backend \"none\" selected: commands run UNCONFINED with your full rights")
		return unconfined.New(unconfined.Options{Helper: o.Helper, Logger: log})
	}
	return nil, fmt.Errorf("%w %q: choose one of auto, bwrap, landlock, seatbelt, container or none", ErrUnknown, name)
}

// fixHint keeps typed nil out of the interface and tells how to fix a
// missing backend.
func fixHint[B sandbox.Backend](b B, err error, hint string) (sandbox.Backend, error) {
	if err != nil {
		return nil, fmt.Errorf("%w; to fix: %s", err, hint)
	}
	return b, nil
}

func auto(ctx context.Context, o Options, log *slog.Logger) (sandbox.Backend, error) {
	var errs []error
	switch runtime.GOOS {
	case "linux":
		b, err := bwrap.New(ctx, bwrap.Options{Bwrap: o.Bwrap, Helper: o.Helper, Home: o.Home, Shown: o.Shown, Logger: log})
		if err == nil {
			return b, nil
		}
		errs = append(errs, err)
		log.Info("sandbox: bubblewrap unavailable, using Landlock", "reason", err)
		l, err := landlock.New(landlock.Options{Helper: o.Helper, Home: o.Home, Logger: log})
		if err == nil {
			return l, nil
		}
		errs = append(errs, err)
	case "darwin":
		s, err := seatbelt.New(seatbelt.Options{Helper: o.Helper, Home: o.Home, Logger: log})
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	default:
		errs = append(errs, fmt.Errorf("%w: no native sandbox for %s", sandbox.ErrUnavailable, runtime.GOOS))
	}
	return nil, fmt.Errorf("no sandbox backend works on this machine (%w); install bubblewrap, or configure the container backend", errors.Join(errs...))
}

// BackendStatus says whether one backend can run here.
type BackendStatus struct {
	Name      string
	Available bool
	Reason    string // why not, or a detail such as the Landlock ABI
	Backend   sandbox.Backend
}

// Available probes every concrete backend (not auto, not none). The
// container backend is probed only when an image is configured.
func Available(ctx context.Context, o Options, log *slog.Logger) []BackendStatus {
	var out []BackendStatus
	add := func(name string, b sandbox.Backend, err error, detail string) {
		st := BackendStatus{Name: name, Available: err == nil, Backend: b, Reason: detail}
		if err != nil {
			st.Reason = err.Error()
		}
		out = append(out, st)
	}
	bw, err := bwrap.New(ctx, bwrap.Options{Bwrap: o.Bwrap, Helper: o.Helper, Home: o.Home, Shown: o.Shown, Logger: log})
	add(bwrap.Name, orNil(bw, err), err, "")
	ll, err := landlock.New(landlock.Options{Helper: o.Helper, Home: o.Home, Logger: log})
	detail := ""
	if err == nil {
		detail = fmt.Sprintf("Landlock ABI %d", ll.ABI())
	}
	add(landlock.Name, orNil(ll, err), err, detail)
	sb, err := seatbelt.New(seatbelt.Options{Helper: o.Helper, Home: o.Home, Logger: log})
	add(seatbelt.Name, orNil(sb, err), err, "")
	co := o.container(log)
	if co.Image == "" {
		add(container.Name, nil, fmt.Errorf("%w: no container image configured", sandbox.ErrUnavailable), "")
	} else {
		c, err := container.New(ctx, co)
		add(container.Name, orNil(c, err), err, "")
	}
	return out
}

func orNil[B sandbox.Backend](b B, err error) sandbox.Backend {
	if err != nil {
		return nil
	}
	return b
}
