package tray

// WatcherName is the D-Bus name a StatusNotifierItem host owns: a panel
// that shows tray icons (KDE, Xfce, Cinnamon, GNOME with the AppIndicator
// extension). Without an owner no tray icon is visible anywhere.
const WatcherName = "org.kde.StatusNotifierWatcher"

// NoHostMessage is what the log says when nothing shows tray icons: the
// icon, and the kill switch on it, cannot be seen, so it says where the
// kill switch is instead.
const NoHostMessage = "no tray here: this desktop session shows no tray icons (nothing owns " + WatcherName +
	": a plain X or Wayland session, or GNOME without the AppIndicator extension), so the Gatehouse icon is not visible; " +
	"the kill switch (Stop all agents now) is in the Gatehouse window, and in a terminal: gatehouse kill"

// NoHostNotice is the desktop notification's title and body for the same.
const (
	NoHostTitle = "Gatehouse: no tray icon on this desktop"
	NoHostBody  = "This desktop shows no tray icons, so Gatehouse's icon is not visible. " +
		"The kill switch (Stop all agents now) is in the Gatehouse window; in a terminal: gatehouse kill."
)
