package audit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// ExportStats is what an export wrote: enough to say so, and to compare
// its last hash with the live database later.
type ExportStats struct {
	Events   int64
	Bytes    int64
	LastSeq  int64
	LastHash string // "" when no event matched
}

// Export writes the events matching f as JSON Lines, oldest first, one
// Event.MarshalJSON record per line, hashes included. An unfiltered export
// (or one of a contiguous seq range) can be checked offline with VerifyJSONL.
func (s *Store) Export(ctx context.Context, w io.Writer, f Filter) (ExportStats, error) {
	var st ExportStats
	where, args := f.where(0, 0)
	rows, err := s.db.QueryContext(ctx, selectSQL+where+" ORDER BY seq ASC", args...)
	if err != nil {
		return st, db.Classify(fmt.Errorf("read audit events: %w", err))
	}
	defer rows.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return st, err
		}
		line = appendRecord(line[:0], &e)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return st, fmt.Errorf("write audit export: %w", err)
		}
		st.Events++
		st.Bytes += int64(len(line))
		st.LastSeq, st.LastHash = e.Seq, e.Hash
	}
	if err := rows.Err(); err != nil {
		return st, db.Classify(fmt.Errorf("read audit events: %w", err))
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write audit export: %w", err)
	}
	return st, nil
}

// maxLine bounds one export line: a full payload plus the other fields.
const maxLine = MaxPayloadBytes + 64<<10

// VerifyJSONL verifies an export read from r, line by line in constant
// memory. A chain that starts after seq 1 is verified from its first line's
// prev_hash (see Report.FromGenesis). The error is for failures to read r.
func VerifyJSONL(r io.Reader) (Report, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	c := newChainChecker(false)
	var line []byte
	for lineNo := 1; ; lineNo++ {
		var err error
		line, err = readLine(br, line[:0])
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return c.r, nil
		}
		if errors.Is(err, errLineTooLong) {
			c.fail(c.nextSeq, ProblemUnreadable, "line %d is longer than any audit event can be", lineNo)
			return c.r, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return Report{}, fmt.Errorf("read audit export: %w", err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if jerr := e.UnmarshalJSON(line); jerr != nil {
			c.fail(c.nextSeq, ProblemUnreadable, "line %d is not an audit event record", lineNo)
			return c.r, nil
		}
		if !c.check(&e) {
			return c.r, nil
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine appends one line (without its newline) to dst.
func readLine(br *bufio.Reader, dst []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		dst = append(dst, chunk...)
		if len(dst) > maxLine {
			return dst, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(dst) > 0 && dst[len(dst)-1] == '\n' {
			dst = dst[:len(dst)-1]
		}
		return dst, err
	}
}
