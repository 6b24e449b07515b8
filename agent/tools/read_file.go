package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadFileName is the name of the read_file tool.
const ReadFileName = "read_file"

//go:embed read_file.md
var readFileDescription string

// ReadFileParams are read_file's arguments.
type ReadFileParams struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

const readFileSchema = `{"type": "object", "properties": {
	"path": {"type": "string", "minLength": 1, "description": "File path relative to the workspace root, like src/main.go"},
	"offset": {"type": "integer", "description": "First line to return, counting from 1 (default 1)"},
	"limit": {"type": "integer", "description": "Number of lines to return (default fits the context window)"}
}, "required": ["path"]}`

// maxLineChars is the longest line read_file shows; a longer line is cut
// and says how much.
const maxLineChars = 500

// ReadFile is the read_file tool. Its result numbers each line as "N| text"
// (the number, a bar and a space, the style of seed 000 Example 8), so
// the model can cite a line without quoting it; the numbers are not part
// of the file. offset counts from 1 (0 reads as 1), and limit defaults to
// the workspace's ReadLines. The lines shown stop at twice the
// workspace's ResultChars; a line over 500 bytes is cut. When lines remain,
// a last line "[lines A-B of N; read on with offset B+1]" says so. A binary
// file (a NUL byte in its first 8 KiB) is refused.
type ReadFile struct{}

func (ReadFile) Name() string            { return ReadFileName }
func (ReadFile) Description() string     { return strings.TrimSpace(readFileDescription) }
func (ReadFile) Schema() json.RawMessage { return json.RawMessage(readFileSchema) }
func (ReadFile) ReadOnly() bool          { return true }

// ExistingFileArgs is FileArgs: path names a file that exists.
func (ReadFile) ExistingFileArgs() []string { return []string{"path"} }

func (t ReadFile) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p ReadFileParams
	if r, ok := decodeArgs(ReadFileName, args, &p); !ok {
		return r, nil
	}
	if p.Offset < 0 || p.Limit < 0 {
		return errorResult("%s: offset and limit must not be negative; offset counts lines from 1", ReadFileName), nil
	}
	abs, r, ok := ws.resolveResult(ReadFileName, p.Path)
	if !ok {
		return r, nil
	}
	rel := ws.Rel(abs)
	f, err := os.Open(abs)
	if err != nil {
		return describePathError(ReadFileName, rel, err), nil
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return errorResult("%s: %s is a directory; list_files lists it", ReadFileName, rel), nil
	}
	offset := max(p.Offset, 1)
	limit := p.Limit
	if limit == 0 {
		limit = ws.cfg.ReadLines
	}
	return readLines(ctx, f, rel, offset, limit, 2*ws.cfg.ResultChars)
}

// readLines numbers lines [offset, offset+limit) of r within budget bytes
// and counts the rest.
func readLines(ctx context.Context, r io.Reader, rel string, offset, limit, budget int) (Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(8 << 10); bytes.IndexByte(head, 0) >= 0 {
		return errorResult("%s: %s is a binary file", ReadFileName, rel), nil
	}
	var b strings.Builder
	n, last := 0, 0 // lines seen, last line shown
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err != io.EOF {
				return describePathError(ReadFileName, rel, err), nil
			}
			break
		}
		n++
		if n%4096 == 0 && ctx.Err() != nil {
			return cancelled(ctx, ReadFileName), nil
		}
		if n < offset || n >= offset+limit || (last > 0 && b.Len() >= budget) {
			continue
		}
		text := cutLine(strings.TrimRight(line, "\r\n"), maxLineChars)
		fmt.Fprintf(&b, "%d| %s\n", n, strings.ToValidUTF8(text, "\uFFFD"))
		last = n
	}
	switch {
	case n == 0:
		return Result{Content: fmt.Sprintf("(%s is empty)", rel)}, nil
	case offset > n:
		return errorResult("%s: offset %d is past the end of %s, which has %d lines", ReadFileName, offset, rel, n), nil
	case last < n:
		fmt.Fprintf(&b, "[lines %d-%d of %d; read on with offset %d]", offset, last, n, last+1)
	}
	return Result{Content: strings.TrimSuffix(b.String(), "\n")}, nil
}
