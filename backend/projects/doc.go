// Package projects decides which project an agent run works in, and
// whether Gatehouse may serve it: workspaces follow the agent.
//
// The sequence, once per agent run (the transports call it through
// session.Runs when a run is first seen):
//
//  1. Of: the project is the git top-level of the run's working directory
//     (the nearest ancestor holding .git), or that directory; symlinks
//     resolved.
//  2. Refuse: a project that would hand an agent the system, the home
//     directory (its secrets) or Gatehouse's own data is refused outright,
//     whatever the person would click.
//  3. A project inside a configured root (--workspace, [workspaces] roots,
//     or one added since) is served at once; any other raises a
//     `workspace` card, and "always" adds it to the roots in the config.
package projects
