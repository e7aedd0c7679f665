//go:build desktop && linux

package window

/*
#cgo linux pkg-config: gtk+-3.0
#include <gtk/gtk.h>

static void gh_set_program(void) {
	g_set_prgname("gatehouse");
	gdk_set_program_class("Gatehouse");
}
*/
import "C"

// setProgram names the window "gatehouse" to the desktop (WM_CLASS
// gatehouse/Gatehouse, as build/linux/gatehouse.desktop's StartupWMClass
// says) although this program is gatehouse-desktop. GTK fixes the class
// when it starts, before Wails' own ProgramName is applied.
func setProgram() { C.gh_set_program() }
