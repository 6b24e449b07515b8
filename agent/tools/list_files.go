package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/confined"
)

// ListFilesName is the name of the list_files tool.
const ListFilesName = "list_files"

//go:embed list_files.md
var listFilesDescription string

// ListFilesParams are list_files's arguments.
type ListFilesParams struct {
	Pattern string `json:"pattern"`
}

const listFilesSchema = `{"type": "object", "properties": {
	"pattern": {"type": "string", "minLength": 1, "description": "Glob relative to the workspace root, like **/*.go or src/*; ** spans directories"}
}, "required": ["pattern"]}`

// ListFiles is the list_files tool. The pattern is matched against paths
// relative to the root with forward slashes: * ? and [...] within one
// segment as path.Match has them, and a segment ** for any number of
// directories, none included. A pattern without wildcards that names a
// directory lists the directory's entries ("src" reads as "src/*"; "."
// lists the root). Symlinks are listed, not followed, and nothing but
// directories is opened. The directories of skipDirs (.git, node_modules,
// ...) are listed but not entered unless the pattern starts inside them.
// It shows at most the workspace's MaxFiles paths within ResultChars,
// then says how many more matched. A directory it cannot read is named
// ("list_files: src: permission denied"), and the call is an error when
// the directory it starts in cannot be read.
type ListFiles struct{}

func (ListFiles) Name() string            { return ListFilesName }
func (ListFiles) Description() string     { return strings.TrimSpace(listFilesDescription) }
func (ListFiles) Schema() json.RawMessage { return json.RawMessage(listFilesSchema) }
func (ListFiles) ReadOnly() bool          { return true }

func (ListFiles) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p ListFilesParams
	if r, ok := decodeArgs(ListFilesName, listFilesSchema, args, &p); !ok {
		return r, nil
	}
	root, err := ws.openRoot()
	if err != nil {
		return rootUnreadable(ListFilesName, err), nil
	}
	defer root.Close()
	pattern, prefix, r, ok := normalizeGlob(ws, root, p.Pattern)
	if !ok {
		return r, nil
	}
	abs, r, ok := ws.resolveResult(ListFilesName, prefix)
	if !ok {
		return r, nil
	}
	l := listing{pattern: pattern, prefix: prefix, start: ws.Rel(abs)}
	l.deep = strings.Contains(pattern, "**")
	l.depth = strings.Count(pattern, "/") + 1
	err = fs.WalkDir(confined.FS(root), l.start, func(name string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return l.visit(name, d, err)
	})
	if err != nil {
		return cancelled(ctx, ListFilesName), nil
	}
	if l.startDenied != nil {
		if l.start == "." {
			return rootUnreadable(ListFilesName, l.startDenied), nil
		}
		return errorResult("%s: %s: %v", ListFilesName, prefix, causeOf(l.startDenied)), nil
	}
	res := listResult(ws, p.Pattern, l.found)
	res.Content += l.unreadable.note(ListFilesName, "\n")
	return res, nil
}

// listing is one list_files walk: the paths found that match, and the
// directories that could not be read.
type listing struct {
	pattern, prefix string // the glob and its part before the first wildcard
	start           string // prefix resolved, relative to the root
	deep            bool   // the pattern has **
	depth           int    // the pattern's segments
	found           []string
	unreadable      unreadable
	startDenied     error // the start directory could not be read
}

// visit is the walk function: name is relative to the root, and is shown
// under the prefix the model wrote.
func (l *listing) visit(name string, d fs.DirEntry, err error) error {
	rel := l.prefix
	if name != l.start {
		rel = path.Join(l.prefix, strings.TrimPrefix(name, l.start+"/"))
		if l.start == "." {
			rel = path.Join(l.prefix, name)
		}
	}
	switch {
	case err != nil && name == l.start && errors.Is(err, fs.ErrNotExist):
		return nil // no such directory: no files match
	case err != nil && name == l.start:
		l.startDenied = err
		return nil
	case err != nil:
		l.unreadable.add(rel, err)
		return nil
	case name == l.start:
		return nil
	}
	if matchGlob(l.pattern, rel) {
		l.found = append(l.found, rel+map[bool]string{true: "/"}[d.IsDir()])
	}
	if d.IsDir() && (skipDir(d.Name()) || !l.deep && strings.Count(rel, "/")+1 >= l.depth) {
		return fs.SkipDir
	}
	return nil
}

// normalizeGlob cleans the model's pattern and splits off the part before
// the first wildcard, where the walk starts. A pattern naming a directory
// becomes its entries.
func normalizeGlob(ws *Workspace, root *os.Root, raw string) (pattern, prefix string, r Result, ok bool) {
	pattern = strings.Trim(strings.TrimSpace(filepath.ToSlash(raw)), "/")
	if strings.HasPrefix(strings.TrimSpace(raw), "/") {
		pattern = "/" + pattern // absolute: Resolve decides
	}
	if pattern == "" || pattern == "." {
		pattern = "*"
	}
	if !validGlob(pattern) {
		return "", "", errorResult("%s: %q is not a valid glob; use * ? [...] and **, for example **/*.go", ListFilesName, raw), false
	}
	if !hasMeta(pattern) {
		if abs, err := ws.Resolve(pattern); err == nil {
			if info, err := root.Stat(ws.Rel(abs)); err == nil && info.IsDir() {
				pattern += "/*"
			}
		}
	}
	segs := strings.Split(pattern, "/")
	i := slices.IndexFunc(segs, hasMeta)
	if i < 0 {
		i = len(segs) - 1 // a plain path: walk its directory
	}
	prefix = path.Clean(strings.Join(segs[:i], "/"))
	if prefix == "" {
		prefix = "."
	}
	if path.IsAbs(pattern) || slices.Contains(segs, "..") {
		return "", "", errorResult("%s: refused: %q leaves the workspace root; patterns are relative to the root, like src/**/*.go", ListFilesName, raw), false
	}
	pattern = path.Clean(pattern)
	return pattern, prefix, Result{}, true
}

// listResult shows the paths found, sorted, within the workspace's limits.
func listResult(ws *Workspace, raw string, found []string) Result {
	if len(found) == 0 {
		return Result{Content: fmt.Sprintf("No files match %q.", raw)}
	}
	slices.Sort(found)
	var b strings.Builder
	shown := 0
	for _, f := range found {
		if shown >= ws.cfg.MaxFiles || b.Len()+len(f)+1 > ws.cfg.ResultChars {
			break
		}
		b.WriteString(f + "\n")
		shown++
	}
	if more := len(found) - shown; more > 0 {
		fmt.Fprintf(&b, "[%d more paths not shown; use a narrower pattern]", more)
	}
	return Result{Content: strings.TrimSuffix(b.String(), "\n")}
}
