package call

// A command runs without the right to gain privileges (no_new_privs: sudo,
// su and setuid programs do not work) and sees the system read-only, or
// not at all (/var). A system package manager then fails with "are you
// root?", sudo with its "no new privileges" flag: an agent takes it for a
// missing password or a broken machine, and tries again as root. The note
// says it was Gatehouse's boundary, and what works instead.

// privilegeFailures are what sudo, su and the system's package managers
// print when they cannot become root or take their lock.
var privilegeFailures = []string{
	`"no new privileges" flag`, "sudo: effective uid is not 0", "sudo: unable to change to root gid",
	"su: cannot set groups", "su: system error", "su: authentication failure",
	"could not open lock file /var/lib/dpkg", "unable to acquire the dpkg frontend lock",
	"this command has to be run with superuser privileges", "you need to be root",
	"unable to lock database", "failed to init transaction (unable to lock database)",
}

// privilegeNote is the note for a command whose output shows it tried to
// become root or install on the system, "" when it does not.
func privilegeNote(out *commandOutput) string {
	if !out.has(privilegeFailures) {
		return ""
	}
	return "Gatehouse's sandbox runs commands without the right to become root (sudo, su and setuid programs do not work there) and shows them the system read-only, so nothing can be installed on the machine from a command; that failure is the sandbox's, not a missing password. Install what the task needs into the project instead (a virtualenv, node_modules, a cargo or go install into a directory of the workspace), or ask the person to install it."
}
