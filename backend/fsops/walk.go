package fsops

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"

	"github.com/gatehouse-dev/gatehouse/backend/fsops/gitignore"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// errStop ends a walk early without being an error.
var errStop = errors.New("stop walking")

// maxDirEntries bounds the names read from one directory.
const maxDirEntries = 100_000

type walkEntry struct {
	dir   *workspace.Dir // open parent, for opening the entry without a path lookup
	path  workspace.Path
	rel   string // relative to the walk start
	info  fs.FileInfo
	depth int // 1 for the start's children
}

type walkOptions struct {
	maxDepth   int  // 0: no limit
	showGitDir bool // visit .git itself (never its contents)
}

type walkStats struct {
	ignored    int // hidden by .gitignore
	unreadable int // directories or entries that could not be read
}

type walkItem struct {
	path  workspace.Path
	rel   string
	depth int
	ign   *gitignore.Matcher
}

// walk visits the tree under start breadth-first, each directory's entries
// in name order, skipping what .gitignore hides and the contents of .git.
// Directories are opened through the root with symlinks refused and never
// followed, so the walk stays in the workspace. visit says whether to
// descend into a directory; returning errStop ends the walk.
func walk(ctx context.Context, roots *workspace.Roots, start workspace.Path, opt walkOptions, visit func(walkEntry) (bool, error)) (walkStats, error) {
	var st walkStats
	ign, err := ancestorIgnores(ctx, roots, start)
	if err != nil {
		return st, err
	}
	queue := []walkItem{{path: start, ign: ign}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if err := ctx.Err(); err != nil {
			return st, err
		}
		d, err := roots.OpenDir(it.path)
		if err != nil {
			if it.depth == 0 {
				return st, err
			}
			st.unreadable++
			continue
		}
		more, err := walkDir(ctx, d, it, opt, &st, visit)
		d.Close()
		if errors.Is(err, errStop) {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		queue = append(queue, more...)
	}
	return st, nil
}

func walkDir(ctx context.Context, d *workspace.Dir, it walkItem, opt walkOptions, st *walkStats, visit func(walkEntry) (bool, error)) ([]walkItem, error) {
	names, err := readNames(d)
	if err != nil {
		st.unreadable++
		return nil, nil
	}
	ign := it.ign
	if slices.Contains(names, ".gitignore") {
		ign = ign.Add(it.path.Rel, readIgnoreFile(d, ".gitignore"))
	}
	var more []walkItem
	for i, name := range names {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		info, err := d.Lstat(name)
		if err != nil {
			st.unreadable++
			continue
		}
		child, err := it.path.Join(name)
		if err != nil {
			st.unreadable++
			continue
		}
		if ign.Ignored(child.Rel, info.IsDir()) {
			st.ignored++
			continue
		}
		isGit := name == ".git"
		if isGit && !opt.showGitDir {
			continue
		}
		rel := name
		if it.rel != "" {
			rel = it.rel + "/" + name
		}
		descend, err := visit(walkEntry{dir: d, path: child, rel: rel, info: info, depth: it.depth + 1})
		if err != nil {
			return nil, err
		}
		if descend && info.IsDir() && !isGit && (opt.maxDepth == 0 || it.depth+1 < opt.maxDepth) {
			more = append(more, walkItem{path: child, rel: rel, depth: it.depth + 1, ign: ign})
		}
	}
	return more, nil
}

func readNames(d *workspace.Dir) ([]string, error) {
	var names []string
	for len(names) < maxDirEntries {
		ents, err := d.ReadDir(1024)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if errors.Is(err, io.EOF) || (err == nil && len(ents) == 0) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(names)
	return names, nil
}

// ancestorIgnores loads .git/info/exclude and the .gitignore files of the
// directories between the workspace root and start, which apply to start's
// contents too. start's own .gitignore is read when the walk enters it.
func ancestorIgnores(ctx context.Context, roots *workspace.Roots, start workspace.Path) (*gitignore.Matcher, error) {
	rootPath, err := roots.Resolve(start.Root)
	if err != nil {
		return nil, err
	}
	d, err := roots.OpenDir(rootPath)
	if err != nil {
		return nil, err
	}
	var m *gitignore.Matcher
	if git, err := d.OpenDir(".git"); err == nil {
		if info, err := git.OpenDir("info"); err == nil {
			m = m.Add("", readIgnoreFile(info, "exclude"))
			info.Close()
		}
		git.Close()
	}
	if start.Rel == "." {
		d.Close()
		return m, nil
	}
	cur := rootPath
	for _, name := range workspace.SplitRel(start.Rel) {
		if err := ctx.Err(); err != nil {
			d.Close()
			return nil, err
		}
		m = m.Add(cur.Rel, readIgnoreFile(d, ".gitignore"))
		next, err := d.OpenDir(name)
		d.Close()
		if err != nil {
			return nil, err
		}
		d, cur = next, next.Path()
	}
	d.Close()
	return m, nil
}

// readIgnoreFile returns the ignore file name in d, or nil when it is
// missing, unreadable or not a regular file.
func readIgnoreFile(d *workspace.Dir, name string) []byte {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, gitignore.MaxFileSize))
	return b
}
