// Package egress is the proxy through which sandboxed commands reach the
// network, one approved domain at a time.
//
// Each run gets its own listener (see sandbox.Proxy), so every connection
// is known to belong to one session's call. A connection asks for a name,
// never an address: CONNECT host:port for TLS, or a plain http:// request.
// For each name and port the proxy
//
//  1. refuses IP literals and names fetch_url would refuse (netguard);
//  2. asks the run's Decider once per run, before anything is resolved,
//     so a name the person has not approved is never even looked up;
//  3. resolves the name itself under fetch_url's SSRF rules (no loopback,
//     private, link-local, CGNAT or metadata address) and pins the answer
//     for the rest of the run;
//  4. for CONNECT, peeks at the TLS ClientHello and refuses a server name
//     (SNI) other than the CONNECT's host, and a tunnel that is not TLS;
//     it never terminates TLS. A plain request's Host must match its URL.
//
// A CONNECT to another port of an approved domain asks again: the answer
// is per domain and port. Every connection, refused ones included, is
// handed to the run's Recorder with its domain, port, bytes each way and
// duration.
package egress
