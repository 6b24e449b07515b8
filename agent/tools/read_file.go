package tools

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ReadFileName is the name of the read_file tool.
const ReadFileName = "read_file"

//go:embed read_file.md
var readFileDescription string

// ReadFileParams are read_file's arguments, within the schema's bounds
// (checked before the file is opened). 0, the value of an argument left
// out, means the default: offset 1, limit the workspace's ReadLines.
type ReadFileParams struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// The bounds of offset and limit: no file read_file reads has more than
// 100,000,000 lines (it reads 64 MiB, at most 67,108,864 lines), so an
// offset past the bound is past any file, while one past the 64 MiB
// still gets its message; and 10,000 lines are more than the longest
// result (twice ResultChars) ever shows.
const readFileSchema = `{"type": "object", "properties": {
	"path": {"type": "string", "minLength": 1, "description": "File path relative to the workspace root, like src/main.go"},
	"offset": {"type": "integer", "minimum": 1, "maximum": 100000000, "description": "First line to return, counting from 1 (default 1)"},
	"limit": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "Number of lines to return (default fits the context window)"}
}, "required": ["path"]}`

// maxLineChars is the longest line read_file shows; a longer line is cut
// and says how much.
const maxLineChars = 500

// readMaxBytes is how much of a file read_file reads, 64 MiB: enough to
// number the lines of any source file, and a bound on the time and the
// memory one call takes on a file of gigabytes. Past it the result says
// that the rest is for shell tools.
const readMaxBytes = 64 << 20

// ReadFile is the read_file tool. Its result numbers each line as "N| text"
// (the number, a bar and a space), so the model can cite a line without quoting it; the numbers are not part
// of the file. offset counts from 1 (0 reads as 1), and limit defaults to
// the workspace's ReadLines; either out of the schema's bounds is refused
// before the file is opened. The lines shown stop at twice the
// workspace's ResultChars; a line over 500 bytes is cut, and only its
// first bytes are ever held. When lines remain, a last line "[lines A-B
// of N; read on with offset B+1]" says so. A binary file (a NUL byte in
// its first 8 KiB) is refused, and so is anything but a regular file (a
// FIFO, socket or device is never read). Reading stops after the first 64
// MiB of a file. A successful read names its file in Result.Read.
type ReadFile struct{}

func (ReadFile) Name() string            { return ReadFileName }
func (ReadFile) Description() string     { return strings.TrimSpace(readFileDescription) }
func (ReadFile) Schema() json.RawMessage { return json.RawMessage(readFileSchema) }
func (ReadFile) ReadOnly() bool          { return true }

// ExistingFileArgs is FileArgs: path names a file that exists.
func (ReadFile) ExistingFileArgs() []string { return []string{"path"} }

func (t ReadFile) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p ReadFileParams
	if r, ok := decodeArgs(ReadFileName, readFileSchema, args, &p); !ok {
		return r, nil
	}
	f, _, rel, r, ok := ws.openRead(ReadFileName, p.Path)
	if !ok {
		return r, nil
	}
	defer f.Close()
	offset := max(p.Offset, 1)
	limit := p.Limit
	if limit == 0 {
		limit = ws.cfg.ReadLines
	}
	r, err := readLines(ctx, f, rel, offset, limit, 2*ws.cfg.ResultChars)
	if err == nil && !r.IsError {
		r.Read = []string{rel}
	}
	return r, err
}

// readLines numbers lines [offset, offset+limit) of r within budget bytes
// and counts the rest, up to readMaxBytes of r.
func readLines(ctx context.Context, r io.Reader, rel string, offset, limit, budget int) (Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(sniffLen); isBinary(head) {
		return errorResult("%s: %s is a binary file", ReadFileName, rel), nil
	}
	lr := &lineReader{br: br, keep: maxLineChars + utf8.UTFMax, limit: readMaxBytes}
	var b strings.Builder
	n, last := 0, 0 // lines seen, last line shown
	for {
		line, dropped, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil && err != errReadLimit {
			return describePathError(ReadFileName, rel, err), nil
		}
		n++
		if n%4096 == 0 && ctx.Err() != nil {
			return cancelled(ctx, ReadFileName), nil
		}
		if n < offset || n >= offset+limit || (last > 0 && b.Len() >= budget) {
			continue
		}
		text := cutKept(string(line), dropped, maxLineChars)
		fmt.Fprintf(&b, "%d| %s\n", n, strings.ToValidUTF8(text, "\uFFFD"))
		last = n
	}
	return Result{Content: readEnd(&b, rel, n, offset, last, lr.stopped), IsError: n > 0 && offset > n}, nil
}

// readEnd finishes a read_file result: the lines shown and a note on
// what remains, or the message for an offset past what was read.
func readEnd(b *strings.Builder, rel string, n, offset, last int, stopped bool) string {
	const mib = readMaxBytes >> 20
	switch {
	case n == 0:
		return fmt.Sprintf("(%s is empty)", rel)
	case offset > n && stopped:
		return fmt.Sprintf("%s: offset %d is past the first %d MiB of %s (%d lines), which is all read_file reads; use a shell command such as sed -n '%d,%dp' %s",
			ReadFileName, offset, mib, rel, n, offset, offset+39, rel)
	case offset > n:
		return fmt.Sprintf("%s: offset %d is past the end of %s, which has %d lines", ReadFileName, offset, rel, n)
	case stopped:
		fmt.Fprintf(b, "[lines %d-%d of more than %d; read_file reads only the first %d MiB of %s, so use shell commands past line %d]", offset, last, n, mib, rel, n)
	case last < n:
		fmt.Fprintf(b, "[lines %d-%d of %d; read on with offset %d]", offset, last, n, last+1)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
