package tools

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
)

// Grep is the grep tool: Go regular expressions (RE2, so no
// backreferences) over the files under path, in lexical order, one line
// "path:N: text" per matching line. It skips binary files, files over
// 8 MiB, symlinks and the directories of skipDirs (.git, node_modules,
// ...) unless path is inside them. It shows at most the workspace's
// MaxMatches lines within ResultChars, each cut at 200 bytes, and then
// says how many more matched.
type Grep struct{}

func (Grep) Name() string            { return GrepName }
func (Grep) Description() string     { return strings.TrimSpace(grepDescription) }
func (Grep) Schema() json.RawMessage { return json.RawMessage(grepSchema) }
func (Grep) ReadOnly() bool          { return true }

func (Grep) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p GrepParams
	if r, ok := decodeArgs(GrepName, args, &p); !ok {
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
	start, r, ok := ws.resolveResult(GrepName, p.Path)
	if !ok {
		return r, nil
	}
	g := &grepRun{ws: ws, re: re}
	err = filepath.WalkDir(start, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if name != start && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			g.file(name)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return cancelled(ctx, GrepName), nil
		}
		return describePathError(GrepName, p.Path, err), nil
	}
	return g.result(p), nil
}

// grepRun collects the matches of one call.
type grepRun struct {
	ws      *Workspace
	re      *regexp.Regexp
	out     strings.Builder
	shown   int
	matches int
	full    bool // no more lines fit
}

// file searches one file.
func (g *grepRun) file(name string) {
	f, err := os.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || info.Size() > grepMaxFile {
		return
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(sniffLen); isBinary(head) {
		return
	}
	rel := g.ws.Rel(name)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if g.re.MatchString(line) {
			g.add(fmt.Sprintf("%s:%d: %s\n", rel, n, strings.ToValidUTF8(cutLine(line, grepMaxLine), "\uFFFD")))
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
		return Result{Content: fmt.Sprintf("No matches for %q in %s.", p.Pattern, where)}
	}
	if more := g.matches - g.shown; more > 0 {
		fmt.Fprintf(&g.out, "[%d more matches not shown; narrow the pattern or the path]", more)
	}
	return Result{Content: strings.TrimSuffix(g.out.String(), "\n")}
}
