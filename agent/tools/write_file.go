package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
type WriteFile struct{}

func (WriteFile) Name() string            { return WriteFileName }
func (WriteFile) Description() string     { return strings.TrimSpace(writeFileDescription) }
func (WriteFile) Schema() json.RawMessage { return json.RawMessage(writeFileSchema) }
func (WriteFile) ReadOnly() bool          { return false }

func (WriteFile) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p WriteFileParams
	if r, ok := decodeArgs(WriteFileName, args, &p); !ok {
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
	verb := "Created"
	if info, err := os.Stat(abs); err == nil {
		if info.IsDir() {
			return errorResult("%s: %s is a directory", WriteFileName, rel), nil
		}
		verb = "Wrote"
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return describePathError(WriteFileName, rel, err), nil
	}
	if err := os.WriteFile(abs, []byte(p.Content), 0o644); err != nil {
		return describePathError(WriteFileName, rel, err), nil
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
