package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// WriteFileName is the name of the write_file tool.
const WriteFileName = "write_file"

//go:embed write_file.md
var writeFileDescription string

// WriteFileParams are write_file's arguments.
type WriteFileParams struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

const writeFileSchema = `{"type": "object", "properties": {
	"path": {"type": "string", "minLength": 1, "description": "File path relative to the workspace root, like src/main.go"},
	"content": {"type": "string", "minLength": 1, "description": "The whole new content of the file"}
}, "required": ["path", "content"]}`

// WriteFile is the write_file tool: it writes a whole file, creating the
// directories above it (mode 0755) and the file (mode 0644; an existing
// file keeps its mode). Schema aside, an empty content writes an empty
// file.
//
// The content goes to a temporary file in the same directory, renamed
// over the path (confined.WriteFile): a hard link at the path becomes a
// file of its own instead of being written through, and nothing outside
// the workspace is ever written. A path that is a symlink to a file
// inside the workspace writes the link's target and leaves the link, as
// an editor does; a symlink that leads out is refused. A successful write
// names its file in Result.Changed.
//
// Content that does not parse as Go or JSON, for a file of that kind that
// is new or parses now, is refused as edit_file refuses it, and so is a Go
// file whose package clause or package-level names would break its
// directory's package (see refusePackage; Config.NoSyntaxCheck).
type WriteFile struct{}

func (WriteFile) Name() string            { return WriteFileName }
func (WriteFile) Description() string     { return strings.TrimSpace(writeFileDescription) }
func (WriteFile) Schema() json.RawMessage { return json.RawMessage(writeFileSchema) }
func (WriteFile) ReadOnly() bool          { return false }

// WritesFiles marks write_file as a FileWriter.
func (WriteFile) WritesFiles() {}

func (WriteFile) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p WriteFileParams
	if r, ok := decodeArgs(WriteFileName, writeFileSchema, args, &p); !ok {
		return r, nil
	}
	abs, r, ok := ws.resolveResult(WriteFileName, p.Path)
	if !ok {
		return r, nil
	}
	rel := ws.Rel(abs)
	if abs == ws.root {
		return errorResult("%s: the path names the workspace root; give a file path like src/main.go", WriteFileName), nil
	}
	prior := func() (string, bool, bool) {
		before, err := ws.ReadFile(rel, editMaxBytes)
		return string(before), err == nil, err == nil || errors.Is(err, fs.ErrNotExist)
	}
	if r, refused := ws.refuseBreak(WriteFileName, rel, p.Content, prior, 0, 0); refused {
		return r, nil
	}
	if r, refused := ws.refusePackage(WriteFileName, rel, p.Content, prior); refused {
		return r, nil
	}
	created, r, ok := ws.writeRel(WriteFileName, rel, []byte(p.Content))
	if !ok {
		return r, nil
	}
	verb := "Wrote"
	if created {
		verb = "Created"
	}
	lines := 0
	if p.Content != "" {
		lines = len(splitLines(p.Content))
	}
	return Result{
		Content: fmt.Sprintf("%s %s: %d lines, %d bytes.", verb, rel, lines, len(p.Content)),
		Changed: []string{rel},
	}, nil
}
