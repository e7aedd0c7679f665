//go:build desktop && linux

package window

/*
#cgo linux pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *title, *text, *detail;
	int result, done;
	GMutex m;
	GCond c;
} gh_ask;

// The Gatehouse window among the toplevels, for the dialog to sit on.
static GtkWindow *gh_main_window(void) {
	GtkWindow *found = NULL;
	GList *all = gtk_window_list_toplevels();
	for (GList *l = all; l != NULL; l = l->next) {
		GtkWindow *w = GTK_WINDOW(l->data);
		const char *t = gtk_window_get_title(w);
		if (gtk_window_get_window_type(w) == GTK_WINDOW_TOPLEVEL && !GTK_IS_DIALOG(w) && t != NULL && strstr(t, "Gatehouse") != NULL) {
			found = w;
			break;
		}
	}
	g_list_free(all);
	return found;
}

static gboolean gh_ask_idle(gpointer p) {
	gh_ask *a = p;
	GtkWindow *parent = gh_main_window();
	GtkWidget *d = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
		GTK_MESSAGE_WARNING, GTK_BUTTONS_NONE, "%s", a->text);
	gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(d), "%s", a->detail);
	gtk_window_set_title(GTK_WINDOW(d), a->title);
	GtkWidget *keep = gtk_dialog_add_button(GTK_DIALOG(d), "_Keep running", GTK_RESPONSE_CANCEL);
	GtkWidget *quit = gtk_dialog_add_button(GTK_DIALOG(d), "_Quit and deny", GTK_RESPONSE_ACCEPT);
	gtk_style_context_add_class(gtk_widget_get_style_context(quit), "destructive-action");
	// A stray Enter keeps Gatehouse running.
	gtk_dialog_set_default_response(GTK_DIALOG(d), GTK_RESPONSE_CANCEL);
	gtk_widget_grab_focus(keep);
	gtk_window_set_keep_above(GTK_WINDOW(d), TRUE);
	int r = gtk_dialog_run(GTK_DIALOG(d));
	gtk_widget_destroy(d);
	g_mutex_lock(&a->m);
	a->result = r;
	a->done = 1;
	g_cond_signal(&a->c);
	g_mutex_unlock(&a->m);
	return G_SOURCE_REMOVE;
}

// gh_ask_quit shows the question on GTK's thread and waits for the answer.
static int gh_ask_quit(const char *title, const char *text, const char *detail) {
	gh_ask a;
	memset(&a, 0, sizeof a);
	a.title = title;
	a.text = text;
	a.detail = detail;
	g_mutex_init(&a.m);
	g_cond_init(&a.c);
	gdk_threads_add_idle(gh_ask_idle, &a);
	g_mutex_lock(&a.m);
	while (!a.done) g_cond_wait(&a.c, &a.m);
	g_mutex_unlock(&a.m);
	g_mutex_clear(&a.m);
	g_cond_clear(&a.c);
	return a.result == GTK_RESPONSE_ACCEPT;
}
*/
import "C"

import (
	"context"
	"unsafe"
)

// askQuit shows a modal GTK dialog on the window: Keep running (the
// default) or Quit and deny. The Wails dialog offers only Yes and No, and
// it passes the text as a printf format.
func askQuit(_ context.Context, title, text, detail string) bool {
	ct, cx, cd := C.CString(title), C.CString(text), C.CString(detail)
	defer C.free(unsafe.Pointer(ct))
	defer C.free(unsafe.Pointer(cx))
	defer C.free(unsafe.Pointer(cd))
	return C.gh_ask_quit(ct, cx, cd) == 1
}
