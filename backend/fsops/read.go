package fsops

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// Units for ReadRequest.Unit.
const (
	UnitLines = "lines"
	UnitBytes = "bytes"
)

// ReadRequest says what part of a file to read. In lines (the default),
// Offset is the first line, counting from 1, and Limit a number of lines;
// output also stops at DefaultReadBytes. In bytes, Offset and Limit are
// byte counts (Limit at most MaxReadBytes); binary content comes back only
// base64-encoded and only when Base64 is set.
type ReadRequest struct {
	Path   workspace.Path
	Unit   string
	Offset int64
	Limit  int64
	Base64 bool
	// AllowOutside permits a Path outside the workspace, for a read a
	// human approved; without it such a Path is refused.
	AllowOutside bool
	// Margin, when set, has a read that returns part of the file also
	// return up to Margin bytes of the file on each side of it (Around),
	// so a secret the part cuts through can be recognised whole.
	Margin int
}

// ReadResult is the content plus where it sits in the file.
type ReadResult struct {
	Path       string `json:"path"`
	Size       int64  `json:"size"`
	Binary     bool   `json:"binary,omitempty"`
	Unit       string `json:"unit"`
	Offset     int64  `json:"offset"`
	Content    string `json:"content,omitempty"`
	Base64     string `json:"base64,omitempty"`
	Bytes      int64  `json:"bytes"`                 // content bytes returned, before any base64
	Lines      int64  `json:"lines,omitempty"`       // lines returned (lines unit)
	TotalLines int64  `json:"total_lines,omitempty"` // set when known
	Truncated  bool   `json:"truncated"`             // more of the file follows
	NextOffset int64  `json:"next_offset,omitempty"` // Offset to pass to continue, in Unit
	Note       string `json:"note,omitempty"`
	// Around is the returned part with the file's bytes on each side of
	// it (ReadRequest.Margin), the part at AroundAt; nil when the read
	// returned the whole file or no margin was asked for.
	Around   []byte `json:"-"`
	AroundAt int    `json:"-"`
}

// ReadFile reads part of a regular file; see ReadRequest.
func ReadFile(ctx context.Context, roots *workspace.Roots, req ReadRequest) (ReadResult, error) {
	if err := ctx.Err(); err != nil {
		return ReadResult{}, err
	}
	p := req.Path
	unit := req.Unit
	if unit == "" {
		unit = UnitLines
		if req.Base64 {
			unit = UnitBytes // base64 is of bytes, never of lines
		}
	}
	if unit != UnitLines && unit != UnitBytes {
		return ReadResult{}, errorf(ErrBadRequest, "unit %q is not known; use %q or %q", req.Unit, UnitLines, UnitBytes)
	}
	if req.Offset < 0 || req.Limit < 0 {
		return ReadResult{}, errorf(ErrBadRequest, "offset and limit must not be negative")
	}
	var f *os.File
	var err error
	switch {
	case p.Inside:
		f, err = roots.OpenRead(p)
	case req.AllowOutside:
		f, err = roots.OpenReadOutside(p)
	default:
		return ReadResult{}, errorf(workspace.ErrOutside, "path %s is outside the workspace (%s); reading it needs approval", p.Abs, joinRoots(roots))
	}
	if err != nil {
		return ReadResult{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ReadResult{}, fmt.Errorf("cannot stat %s: %w", p.Abs, err)
	}
	res := ReadResult{Path: agentPath(roots, p), Size: fi.Size(), Unit: unit}

	sample := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, sample)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return ReadResult{}, fmt.Errorf("cannot read %s: %w", p.Abs, err)
	}
	res.Binary = looksBinary(sample[:n], n < sniffBytes)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ReadResult{}, fmt.Errorf("cannot read %s: %w", p.Abs, err)
	}
	if res.Binary && (unit == UnitLines || !req.Base64) {
		res.Note = fmt.Sprintf("binary file, %d bytes; read it with unit=bytes and base64=true to get the bytes", res.Size)
		return res, nil
	}
	var start int64 // where the returned part begins in the file
	if unit == UnitBytes {
		res, err = readBytes(f, req, res)
		start = req.Offset
	} else {
		res, start, err = readLines(ctx, f, req, res)
	}
	if err != nil || req.Margin <= 0 || res.Bytes == 0 || res.Bytes == res.Size {
		return res, err
	}
	return withMargin(f, res, start, int64(req.Margin))
}

// withMargin reads the bytes around the returned part, which starts at
// start in f.
func withMargin(f *os.File, res ReadResult, start, margin int64) (ReadResult, error) {
	from := max(start-margin, 0)
	to := min(start+res.Bytes+margin, res.Size)
	buf := make([]byte, to-from)
	n, err := f.ReadAt(buf, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return ReadResult{}, fmt.Errorf("cannot read %s: %w", res.Path, err)
	}
	if int64(n) < start-from+res.Bytes {
		return res, nil // the file shrank meanwhile: no context to give
	}
	res.Around, res.AroundAt = buf[:n], int(start-from)
	return res, nil
}

func readBytes(f *os.File, req ReadRequest, res ReadResult) (ReadResult, error) {
	limit := req.Limit
	if limit == 0 {
		limit = DefaultReadBytes
	}
	limit = min(limit, MaxReadBytes)
	res.Offset = req.Offset
	if req.Offset >= res.Size {
		if req.Offset > res.Size {
			res.Note = fmt.Sprintf("offset %d is past the end of the file (%d bytes)", req.Offset, res.Size)
		}
		return res, nil
	}
	buf := make([]byte, min(limit, res.Size-req.Offset))
	n, err := f.ReadAt(buf, req.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return ReadResult{}, fmt.Errorf("cannot read %s: %w", res.Path, err)
	}
	buf = buf[:n]
	if !req.Base64 && req.Offset+int64(n) < res.Size {
		// Do not split a character; the next read starts on it.
		if t := trimPartialRune(buf); len(t) > 0 {
			buf = t
		}
	}
	res.Bytes = int64(len(buf))
	if req.Base64 {
		res.Base64 = base64.StdEncoding.EncodeToString(buf)
	} else {
		res.Content = string(buf)
	}
	if end := req.Offset + res.Bytes; end < res.Size {
		res.Truncated, res.NextOffset = true, end
	}
	return res, nil
}

// readers are reused: a fresh 64 KiB buffer for every read was a tenth of
// a small read_file's cost.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// readLines returns the lines asked for and the byte offset of the
// first of them.
func readLines(ctx context.Context, f *os.File, req ReadRequest, res ReadResult) (ReadResult, int64, error) {
	first := max(req.Offset, 1)
	limit := req.Limit
	if limit == 0 {
		limit = DefaultReadLines
	}
	limit = min(limit, MaxReadLines)
	res.Offset = first

	br := readers.Get().(*bufio.Reader)
	br.Reset(f)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	var out bytes.Buffer
	var line int64 // lines fully read so far
	var pos int64  // byte offset of the next line
	start := int64(-1)
	for {
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return ReadResult{}, 0, err
			}
		}
		inWindow := line+1 >= first
		if inWindow && res.Lines == limit {
			res.Truncated, res.NextOffset = true, line+1
			break
		}
		keep := 0
		if inWindow {
			keep = DefaultReadBytes - out.Len()
			if start < 0 {
				start = pos
			}
		}
		before := out.Len()
		n, full, eof, err := readLine(br, &out, keep)
		if err != nil {
			return ReadResult{}, 0, fmt.Errorf("cannot read %s: %w", res.Path, err)
		}
		if n == 0 && eof {
			break
		}
		line++
		if inWindow && !full && res.Lines > 0 {
			// The line does not fit in what is left; it starts the next read.
			out.Truncate(before)
			res.Truncated, res.NextOffset = true, line
			break
		}
		if inWindow {
			res.Lines++
			if !full {
				res.Truncated, res.NextOffset = true, line+1
				res.Note = fmt.Sprintf("line %d is longer than the %d bytes one read returns and was cut; read byte offset %d onward with unit=bytes for the rest",
					line, DefaultReadBytes, pos+int64(keep))
				break
			}
			if out.Len() >= DefaultReadBytes {
				if !eof {
					res.Truncated, res.NextOffset = true, line+1
				}
				break
			}
		}
		pos += int64(n)
		if eof {
			break
		}
	}
	res.Content = out.String()
	res.Bytes = int64(out.Len())
	if res.Truncated && res.Size <= maxCountBytes {
		total, err := countLines(ctx, f)
		if err != nil {
			return ReadResult{}, 0, err
		}
		res.TotalLines = total
	} else if !res.Truncated {
		res.TotalLines = line
		if res.Lines == 0 && first > 1 {
			res.Note = fmt.Sprintf("the file has %d lines; offset %d is past the end", line, first)
		}
	}
	if res.Truncated && res.TotalLines > 0 && res.NextOffset > res.TotalLines {
		res.Truncated, res.NextOffset = false, 0
	}
	return res, start, nil
}

// readLine consumes one line (with its newline) from br, appending at
// most keep bytes of it to out. It returns the line's full length, whether
// all of it was kept, and whether the input ended.
func readLine(br *bufio.Reader, out *bytes.Buffer, keep int) (n int, full, eof bool, err error) {
	full = true
	want := keep > 0 // false while skipping lines before the window
	for {
		chunk, rerr := br.ReadSlice('\n')
		n += len(chunk)
		if want {
			take := min(len(chunk), keep)
			out.Write(chunk[:take])
			keep -= take
			if take < len(chunk) {
				full = false
			}
		}
		switch {
		case rerr == nil:
			return n, full, false, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF):
			return n, full, true, nil
		default:
			return n, full, false, rerr
		}
	}
}

// countLines counts all lines of f, a final line without "\n" included.
func countLines(ctx context.Context, f *os.File) (int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	buf := make([]byte, 256<<10)
	var lines int64
	var last byte = '\n'
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := f.Read(buf)
		if n > 0 {
			lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
			last = buf[n-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		lines++
	}
	return lines, nil
}
