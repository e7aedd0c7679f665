// Package textdiff renders line-based unified diffs for people to read:
// approval cards, edit results and checkpoint views. Inputs are bounded so
// a huge or binary file yields a one-line summary instead of a stall.
package textdiff
