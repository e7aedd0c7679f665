//go:build desktop

package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/desktop"
	"github.com/gatehouse-dev/gatehouse/app/desktop/window"
)

// The window toolkit (GTK, Cocoa) must run on the main OS thread. Locking
// here, during init, keeps the main goroutine (where cobra runs every
// command) on it for the life of the process.
func init() { runtime.LockOSThread() }

func init() {
	// gatehouse-desktop started as the app hands it to the small gatehouse
	// next to it: the app itself needs neither GTK nor WebKit, and holding
	// them costs every idle minute. Without one it runs the app itself.
	handOff = func() error {
		if p, err := sibling(lightProgram); err == nil {
			return execSibling(p)
		}
		return nil
	}
	windowProgram = func() (string, error) {
		if p, err := sibling(desktopProgram); err == nil {
			return p, nil
		}
		return os.Executable()
	}
	register(func(g *Globals) *cobra.Command {
		var hidden, spare bool
		cmd := &cobra.Command{
			Use:    "window",
			Short:  "The Gatehouse window (started by the desktop app; not for direct use)",
			Hidden: true,
			Args:   cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				dir, err := dataDir(g, "")
				if err != nil {
					return err
				}
				// fd 3 carries events to the app (see package window).
				var st syscall.Stat_t
				if err := syscall.Fstat(3, &st); err != nil {
					return userErrorf(err, "the window is started by the desktop app; run `gatehouse` instead")
				}
				events := os.NewFile(3, "window-events")
				icon := desktop.AppIcon(256)
				var cmds io.Reader = os.Stdin
				if spare {
					// A spare has paid for starting this program, loading
					// its libraries and drawing the icon, the first part of
					// a window's start, and holds no window and no WebKit
					// until the app's first command says how to open it.
					// (Starting GTK here too was measured: about 200 ms
					// sooner, but GTK's OpenGL probe maps the GL driver and
					// LLVM, some 35 MiB for every idle minute.)
					br := bufio.NewReader(os.Stdin)
					line, err := br.ReadBytes('\n')
					if err != nil {
						return nil // the app went away
					}
					c, err := window.ParseCommand(line)
					if err != nil || c.Cmd == window.CmdExit {
						return nil
					}
					hidden = c.Cmd == window.CmdHide
					// The window still carries out that first command.
					cmds = io.MultiReader(bytes.NewReader(line), br)
				}
				err = window.Run(cmd.Context(), window.Options{
					DataDir: dir, StartHidden: hidden, Commands: cmds, Events: events,
					Icon: icon, Version: Version, Logger: g.Logger(),
				})
				if err != nil {
					return userErrorf(err, "%v", err)
				}
				return nil
			},
		}
		cmd.Flags().BoolVar(&hidden, "start-hidden", false, "start with the window hidden")
		cmd.Flags().BoolVar(&spare, "spare", false, "wait, loaded but with no window, for the first command")
		return cmd
	})
}
