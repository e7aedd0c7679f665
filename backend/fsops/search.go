package fsops

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/backend/fsops/glob"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// SearchRequest asks for lines matching Pattern (Go RE2 syntax, so no
// catastrophic backtracking) in the file or directory Path, optionally
// only in files whose path relative to Path matches Glob ("*.go",
// "**/*.ts", "cmd/*").
type SearchRequest struct {
	Pattern    string
	Path       workspace.Path
	Glob       string
	MaxMatches int // 0: DefaultSearchMatches; at most MaxSearchMatches
	// Redact, when set, redacts a matching line (b[start:end]) within its
	// whole file b, so a line of a private key's body is recognised.
	Redact func(b []byte, start, end int) []byte
}

// Match is one matching line.
type Match struct {
	Path   string `json:"path"`   // as read_file takes it
	Line   int    `json:"line"`   // 1-based
	Column int    `json:"column"` // 1-based byte offset of the first match in the line
	Text   string `json:"text"`   // the line, cut to MaxMatchLineChars around the match
}

// SearchResult lists matches in walk order (shallow directories first,
// names in order).
type SearchResult struct {
	Matches       []Match `json:"matches"`
	FilesSearched int     `json:"files_searched"`
	FilesSkipped  int     `json:"files_skipped,omitempty"` // binary or over MaxSearchFileBytes
	Ignored       int     `json:"ignored,omitempty"`       // entries hidden by .gitignore
	Truncated     bool    `json:"truncated"`
}

// SearchFiles searches text files under req.Path, one match per line,
// skipping what .gitignore hides, .git, binary files and files over
// MaxSearchFileBytes; symlinks are not followed.
func SearchFiles(ctx context.Context, roots *workspace.Roots, req SearchRequest) (SearchResult, error) {
	switch {
	case req.Pattern == "":
		return SearchResult{}, errorf(ErrBadRequest, "pattern is empty; give a regular expression to search for")
	case len(req.Pattern) > MaxPatternBytes:
		return SearchResult{}, errorf(ErrBadRequest, "pattern is %d bytes long; the limit is %d", len(req.Pattern), MaxPatternBytes)
	}
	re, err := regexp.Compile(req.Pattern)
	if err != nil {
		return SearchResult{}, errorf(ErrBadRequest, "pattern %q is not a valid regular expression (Go RE2 syntax; lookarounds and backreferences are not supported): %v", req.Pattern, err)
	}
	var gl *glob.Pattern
	if req.Glob != "" {
		if gl, err = glob.Compile(req.Glob); err != nil {
			return SearchResult{}, errorf(ErrBadRequest, "%v", err)
		}
	}
	if !req.Path.Inside {
		return SearchResult{}, errorf(workspace.ErrOutside, "path %s is outside the workspace (%s); search_files only searches the workspace", req.Path.Abs, joinRoots(roots))
	}
	s := &searcher{ctx: ctx, roots: roots, re: re, max: req.MaxMatches, redact: req.Redact}
	if s.max <= 0 {
		s.max = DefaultSearchMatches
	}
	s.max = min(s.max, MaxSearchMatches)
	s.res.Matches = []Match{}

	fi, err := roots.Lstat(req.Path)
	if err != nil {
		return SearchResult{}, err
	}
	if fi.Mode().IsRegular() {
		f, err := roots.OpenRead(req.Path)
		if err != nil {
			return SearchResult{}, err
		}
		defer f.Close()
		if err := s.file(f, req.Path); err != nil && err != errStop {
			return SearchResult{}, err
		}
		return s.res, nil
	}
	if !fi.IsDir() {
		return SearchResult{}, errorf(workspace.ErrNotRegular, "%s is %s; search a file or a directory", agentPath(roots, req.Path), workspace.KindName(fi.Mode()))
	}
	st, err := walk(ctx, roots, req.Path, walkOptions{}, func(e walkEntry) (bool, error) {
		if !e.info.Mode().IsRegular() {
			return true, nil
		}
		if gl != nil && !gl.Match(e.rel) {
			return false, nil
		}
		if e.info.Size() > MaxSearchFileBytes {
			s.res.FilesSkipped++
			return false, nil
		}
		f, err := e.dir.OpenFile(e.path.Name())
		if err != nil {
			return false, nil // gone or replaced since listed: not ours to report
		}
		defer f.Close()
		return false, s.file(f, e.path)
	})
	if err != nil {
		return SearchResult{}, err
	}
	s.res.Ignored = st.ignored
	return s.res, nil
}

type searcher struct {
	ctx    context.Context
	roots  *workspace.Roots
	re     *regexp.Regexp
	max    int
	redact func([]byte, int, int) []byte
	res    SearchResult
}

// file searches one open file; errStop once the match cap is reached.
func (s *searcher) file(f *os.File, p workspace.Path) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSearchFileBytes+1))
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", agentPath(s.roots, p), err)
	}
	if len(data) > MaxSearchFileBytes || looksBinary(data[:min(len(data), sniffBytes)], len(data) <= sniffBytes) {
		s.res.FilesSkipped++
		return nil
	}
	s.res.FilesSearched++
	name := agentPath(s.roots, p)
	whole := data
	for lineNo := 1; len(data) > 0; lineNo++ {
		if lineNo%4096 == 0 {
			if err := s.ctx.Err(); err != nil {
				return err
			}
		}
		line, start := data, len(whole)-len(data)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		loc := s.re.FindIndex(line)
		if loc == nil {
			continue
		}
		if len(s.res.Matches) == s.max {
			s.res.Truncated = true
			return errStop
		}
		at := loc[0]
		if s.redact != nil {
			shown := s.redact(whole, start, start+len(line))
			if !bytes.Equal(shown, line) {
				line, at = shown, 0 // the match may sit in what was replaced
			}
		}
		s.res.Matches = append(s.res.Matches, Match{Path: name, Line: lineNo, Column: loc[0] + 1, Text: excerpt(line, at)})
	}
	return nil
}

// excerpt cuts a long line to MaxMatchLineChars characters, starting a
// little before the match so the match is in view.
func excerpt(line []byte, at int) string {
	if utf8.RuneCount(line) <= MaxMatchLineChars {
		return string(line)
	}
	start := max(0, at-MaxMatchLineChars/4)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end, n := start, 0
	for end < len(line) && n < MaxMatchLineChars {
		_, size := utf8.DecodeRune(line[end:])
		end += size
		n++
	}
	out := string(line[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}
