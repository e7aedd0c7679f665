// Package wssecrets learns the values in a workspace's secret files, so
// the daemon can redact them from everything it returns.
//
// The sandbox hides those files (protect's secret list, less what
// expose_secrets exposes), but their values still reach a command by
// other routes: git's history and objects (`git log -p`, `git show
// HEAD:.env`, `git archive`), another copy, a program that prints its
// configuration. So when a session starts in a workspace, its secret
// files are read (and the versions git's recent history holds), parsed
// by kind (dotenv, PEM keys, JSON credentials, other credential files),
// and their values join the daemon's redactor; a file that changes is
// read again at its next use.
package wssecrets
