// Package plural counts nouns in the text people read: "1 file",
// "2 files", "1 call is", "3 calls are". Every count the CLI, the cards
// and the daemon's messages print goes through Count.
package plural

import "strconv"

// Count is n followed by one when n is 1 and by many otherwise: Count(1,
// "file", "files") is "1 file", Count(0, "file", "files") "0 files".
// The words may carry a verb that agrees: Count(n, "call is", "calls are").
func Count[N ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64](n N, one, many string) string {
	word := many
	if n == 1 {
		word = one
	}
	return strconv.FormatInt(int64(n), 10) + " " + word
}
