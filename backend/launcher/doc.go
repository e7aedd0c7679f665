// Package launcher writes and removes the launchers that `gatehouse
// install NAME --confine` puts in the data dir: small scripts named like an
// agent that start it under `gatehouse run`, so that typing the agent's own
// name starts it confined once their directory comes first on PATH.
//
// A launcher must never find itself in place of the real agent: it takes
// its own directory out of PATH before it starts Gatehouse, and LookPath,
// which `gatehouse run` resolves agents with, passes over every launcher,
// wherever it lies and whatever PATH spells its directory as.
package launcher
