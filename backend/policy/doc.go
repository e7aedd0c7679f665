// Package policy decides, for one tool call in one session, whether Gatehouse
// runs it (allow), asks the person at the desk (ask) or refuses it (deny).
//
// Decide is a pure function of the loaded Policy, the Session and the Call: it
// touches no files and no network, so the tool layer can call it on every
// request and tests can call it directly.
//
// # Where rules come from
//
//   - builtin: the harmless-command allowlist, the mode baseline and the risk
//     classes (interpreter, sensitive target, destructive pattern, protected
//     path, outside the workspace);
//   - user: the person's own policy file (Load's userPath), which may allow,
//     ask or deny;
//   - grant: Session.Grants, rules the person approved for this session; they
//     are evaluated exactly like user rules;
//   - workspace: <root>/.gatehouse/policy.toml, shipped with the code the agent
//     works on and therefore untrusted: it can only tighten (its ask and deny
//     rules apply, its allow rules are dropped with a notice).
//
// # Precedence, in the order Decide applies it
//
//  1. ask_human is always allowed; an unknown tool is denied.
//  2. User rules and session grants that match the call are ranked by
//     specificity (binary > argument prefix length > path/domain literal
//     length > tool). The most specific wins; at equal specificity deny beats
//     ask beats allow.
//  3. Without a matching user rule, the mode baseline applies (see Mode), with
//     the builtin harmless-command allowlist.
//  4. Risk classes found in the call (interpreter, sensitive target,
//     destructive pattern, protected path) turn an allow into ask. Mode can
//     never loosen them; only a user rule or grant that names the risky thing
//     literally (the interpreter's name in binary, the flag in args, the
//     sensitive path component in paths, the host in domains) allows it. The
//     one exception is the person's own prompt (Session.Goal) naming an
//     instruction or memory file a write reaches (steering.go).
//  5. plan mode is a ceiling: writes, edits and commands other than builtin
//     read-only ones are denied even when a user rule allows them.
//  6. Workspace rules that match raise the verdict (allow → ask → deny), never
//     lower it.
//  7. In unattended mode every remaining ask becomes deny.
//
// Text inspection of arguments is a convenience for the person, not a
// security boundary: the sandbox is. The checks here exist to route risky
// calls to a human, and err on the side of asking.
package policy
