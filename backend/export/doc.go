// Package export ships the audit timeline to a team's systems: an
// OpenTelemetry collector over OTLP/HTTP (otlp.go) and an OCSF JSON-lines
// file (ocsf.go). Each sink follows the audit from its own durable cursor
// in the database (cursor.go), in sequence order, at least once; the
// runner (runner.go) does so in its own goroutine, so a collector that is
// down or slow delays nothing on a call's path. The audit itself is the
// backlog: nothing is copied aside, and when a sink falls further behind
// than the bound, its cursor skips the oldest part with an export.dropped
// audit row — the audit is never touched.
//
// Payloads are exported exactly as stored: the daemon redacts every row on
// its way into the audit, so a redacted value never reaches a sink.
package export
