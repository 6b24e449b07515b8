package tools

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/confined"
)

// GrepName is the name of the grep tool.
const GrepName = "grep"

//go:embed grep.md
var grepDescription string

// GrepParams are grep's arguments.
type GrepParams struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

const grepSchema = `{"type": "object", "properties": {
	"pattern": {"type": "string", "minLength": 1, "description": "Go (RE2) regular expression, for example func \\w+Total"},
	"path": {"type": "string", "description": "File or directory to search, relative to the workspace root (default all)"}
}, "required": ["pattern"]}`

const (
	// grepMaxFile is the largest file grep reads.
	grepMaxFile = 8 << 20
	// grepMaxLine is the longest matching line grep shows.
	grepMaxLine = 200
	// grepLineBytes is how much of a line grep searches: a line of
	// minified code can be megabytes long, and only its first 64 KiB is
	// held and matched.
	grepLineBytes = 64 << 10
)

// Grep is the grep tool: Go regular expressions (RE2, so no
// backreferences) over the files under path, in lexical order, one line
// "path:N: text" per matching line. It skips binary files, files over
// 8 MiB, symlinks, FIFOs, sockets and devices, and the directories of
// skipDirs (.git, node_modules, ...) unless path is inside them; it
// searches the first 64 KiB of a longer line. It shows at most the
// workspace's MaxMatches lines within ResultChars, each cut at 200 bytes,
// and then says how many more matched. A directory it cannot read is
// named at the end.
type Grep struct{}

func (Grep) Name() string            { return GrepName }
func (Grep) Description() string     { return strings.TrimSpace(grepDescription) }
func (Grep) Schema() json.RawMessage { return json.RawMessage(grepSchema) }
func (Grep) ReadOnly() bool          { return true }

func (Grep) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p GrepParams
	if r, ok := decodeArgs(GrepName, grepSchema, args, &p); !ok {
		return r, nil
	}
	if p.Pattern == "" {
		return errorResult("%s: pattern is empty", GrepName), nil
	}
	re, err := regexp.Compile(p.Pattern)
	if err != nil {
		return errorResult("%s: pattern %q is not a Go regular expression: %v", GrepName, p.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: ")), nil
	}
	if p.Path == "" {
		p.Path = "."
	}
	abs, r, ok := ws.resolveResult(GrepName, p.Path)
	if !ok {
		return r, nil
	}
	root, err := ws.openRoot()
	if err != nil {
		return rootUnreadable(GrepName, err), nil
	}
	defer root.Close()
	start := ws.Rel(abs)
	g := &grepRun{ws: ws, root: root, re: re}
	err = fs.WalkDir(confined.FS(root), start, func(name string, d fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && name == start && errors.Is(err, fs.ErrNotExist):
			return nil // no such path: no matches
		case err != nil:
			g.unreadable.add(name, err)
			return nil
		case d.IsDir() && name != start && skipDir(d.Name()):
			return fs.SkipDir
		case d.Type().IsRegular():
			g.file(name)
		}
		return nil
	})
	if err != nil {
		return cancelled(ctx, GrepName), nil
	}
	return g.result(p), nil
}

// grepRun collects the matches of one call.
type grepRun struct {
	ws         *Workspace
	root       *os.Root
	re         *regexp.Regexp
	out        strings.Builder
	shown      int
	matches    int
	full       bool // no more lines fit
	unreadable unreadable
}

// file searches the file name, relative to the root: a regular file,
// opened beneath the root (a FIFO swapped in is refused, not read).
func (g *grepRun) file(name string) {
	f, info, err := confined.Open(g.root, name)
	if err != nil {
		return
	}
	defer f.Close()
	if info.Size() > grepMaxFile {
		return
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(sniffLen); isBinary(head) {
		return
	}
	lr := &lineReader{br: br, keep: grepLineBytes, limit: grepMaxFile}
	for n := 1; ; n++ {
		line, dropped, err := lr.next()
		if err != nil && err != errReadLimit {
			return
		}
		if g.re.Match(line) {
			g.add(fmt.Sprintf("%s:%d: %s\n", name, n, strings.ToValidUTF8(cutKept(string(line), dropped, grepMaxLine), "\uFFFD")))
		}
		if err != nil {
			return
		}
	}
}

// add counts a match and shows it while it fits.
func (g *grepRun) add(line string) {
	g.matches++
	if g.full || g.shown >= g.ws.cfg.MaxMatches || g.out.Len()+len(line) > g.ws.cfg.ResultChars {
		g.full = true
		return
	}
	g.out.WriteString(line)
	g.shown++
}

func (g *grepRun) result(p GrepParams) Result {
	if g.matches == 0 {
		where := p.Path
		if where == "." {
			where = "the workspace"
		}
		return Result{Content: fmt.Sprintf("No matches for %q in %s.", p.Pattern, where) + g.unreadable.note(GrepName, "\n")}
	}
	if more := g.matches - g.shown; more > 0 {
		fmt.Fprintf(&g.out, "[%d more matches not shown; narrow the pattern or the path]", more)
	}
	return Result{Content: strings.TrimSuffix(g.out.String(), "\n") + g.unreadable.note(GrepName, "\n")}
}
