package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/confined"
)

// EditFileName is the name of the edit_file tool.
const EditFileName = "edit_file"

//go:embed edit_file.md
var editFileDescription string

// EditFileParams are edit_file's arguments.
type EditFileParams struct {
	Path      string `json:"path"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

const editFileSchema = `{"type": "object", "properties": {
	"path": {"type": "string", "minLength": 1, "description": "File path relative to the workspace root, like src/main.go"},
	"old_string": {"type": "string", "minLength": 1, "description": "Exact text to replace, copied without line numbers"},
	"new_string": {"type": "string", "minLength": 0, "description": "Replacement text; empty deletes old_string"}
}, "required": ["path", "old_string", "new_string"]}`

// maxQuoted is how many lines a failed edit quotes per place.
const maxQuoted = 12

// editMaxBytes is the largest file edit_file edits, 4 MiB: source files
// are far smaller, and a file read whole into memory, searched and
// written again must have a bound. A larger file is for shell tools.
const editMaxBytes = 4 << 20

// EditFile is the edit_file tool: an exact replacement of text that occurs
// once. On success it shows the
// new lines, numbered as read_file numbers them. When old_string is not
// in the file it quotes the window of lines most like it (see
// nearestLines) and says whether they differ only in white space; when it
// occurs more than once it quotes each place. Either way the next try can
// copy the exact text.
//
// Two slips of small models are forgiven: old_string with read_file's
// "N| " line numbers (when every line has one, they are removed from both
// strings), and \n line ends against a file written with \r\n. An empty
// new_string deletes old_string (the schema says "minLength": 0 so that
// the call grammar allows it). A successful edit names its file in
// Result.Changed; an edit that would leave the file as it was is refused,
// so Changed never names a file that did not change.
//
// An edit that would turn a Go or JSON file that parses into one that
// does not is refused, with the parser's message and the edited lines as
// they would read, and the file is left as it was; so is an edit that
// gives a Go file a package clause or a package-level name that breaks its
// directory's package (see refusePackage; Config.NoSyntaxCheck).
//
// Only a regular file of at most 4 MiB is edited. The edited file replaces
// the old one by a rename (confined.WriteFile), keeping its mode: a hard
// link is not written through, and a symlink to a file inside the
// workspace is left a link while its target is edited.
type EditFile struct{}

func (EditFile) Name() string            { return EditFileName }
func (EditFile) Description() string     { return strings.TrimSpace(editFileDescription) }
func (EditFile) Schema() json.RawMessage { return json.RawMessage(editFileSchema) }
func (EditFile) ReadOnly() bool          { return false }

// WritesFiles marks edit_file as a FileWriter.
func (EditFile) WritesFiles() {}

// ExistingFileArgs is FileArgs: path names a file that exists.
func (EditFile) ExistingFileArgs() []string { return []string{"path"} }

// FileTextArg is FileTextArgs: old_string is text of the file named by path.
func (EditFile) FileTextArg() (text, file string) { return "old_string", "path" }

func (EditFile) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p EditFileParams
	if r, ok := decodeArgs(EditFileName, editFileSchema, args, &p); !ok {
		return r, nil
	}
	if p.OldString == "" {
		return errorResult("%s: old_string is empty; copy the exact text to replace from read_file's output, without the line numbers", EditFileName), nil
	}
	if p.OldString == p.NewString {
		return errorResult("%s: old_string and new_string are the same; there is nothing to change", EditFileName), nil
	}
	content, rel, r, ok := readForEdit(ws, p.Path)
	if !ok {
		return r, nil
	}
	old, repl := matchForm(content, p.OldString, p.NewString)
	if old == repl { // "1| x" for "x": the same once the numbers are gone
		return errorResult("%s: old_string and new_string are the same without read_file's line numbers; there is nothing to change", EditFileName), nil
	}
	switch n := strings.Count(content, old); n {
	case 0:
		return notFound(rel, content, p.OldString), nil
	case 1:
	default:
		return ambiguous(rel, content, old, n), nil
	}
	at := strings.Index(content, old)
	edited := content[:at] + repl + content[at+len(old):]
	first := strings.Count(edited[:at], "\n") + 1
	prior := func() (string, bool, bool) { return content, true, true }
	if r, refused := ws.refuseBreak(EditFileName, rel, edited, prior, first, first+max(len(splitLines(repl)), 1)-1); refused {
		return r, nil
	}
	if r, refused := ws.refusePackage(EditFileName, rel, edited, prior); refused {
		return r, nil
	}
	if _, r, ok := ws.writeRel(EditFileName, rel, []byte(edited)); !ok {
		return r, nil
	}
	return Result{Content: showEdit(rel, edited, at, repl), Changed: []string{rel}}, nil
}

// readForEdit reads the file to edit: a regular text file of at most
// editMaxBytes, or the result that says why not.
func readForEdit(ws *Workspace, name string) (content, rel string, r Result, ok bool) {
	f, info, rel, r, ok := ws.openRead(EditFileName, name)
	if !ok {
		return "", rel, r, false
	}
	defer f.Close()
	data, err := confined.ReadAll(f, rel, info.Size(), editMaxBytes)
	if errors.Is(err, confined.ErrTooLarge) {
		return "", rel, errorResult("%s: %s is %.1f MiB, over edit_file's limit of %d MiB; change it with a shell command (sed, awk or a script)",
			EditFileName, rel, float64(max(info.Size(), editMaxBytes+1))/(1<<20), editMaxBytes>>20), false
	}
	if err != nil {
		return "", rel, describePathError(EditFileName, rel, err), false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", rel, errorResult("%s: %s is a binary file", EditFileName, rel), false
	}
	return string(data), rel, Result{}, true
}

// lineNumberPrefix is read_file's "N| " at the start of a line.
var lineNumberPrefix = regexp.MustCompile(`(?m)^[ \t]*\d+\| ?`)

// matchForm returns old and new in the form that occurs in content: as
// written, without read_file's line numbers, or with \r\n line ends.
func matchForm(content, old, repl string) (string, string) {
	if strings.Contains(content, old) {
		return old, repl
	}
	if lines := splitLines(old); len(lineNumberPrefix.FindAllStringIndex(old, -1)) == len(lines) {
		o := lineNumberPrefix.ReplaceAllString(old, "")
		n := repl
		if len(lineNumberPrefix.FindAllStringIndex(repl, -1)) == len(splitLines(repl)) {
			n = lineNumberPrefix.ReplaceAllString(repl, "")
		}
		if strings.Contains(content, o) {
			return o, n
		}
		old, repl = o, n
	}
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") {
		crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
		if strings.Contains(content, crlf(old)) {
			return crlf(old), crlf(repl)
		}
	}
	return old, repl
}

// notFound quotes the lines of content nearest to old.
func notFound(rel, content, old string) Result {
	file := splitLines(content)
	want := splitLines(strings.Trim(old, "\n"))
	near := nearestLines(file, want)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: old_string was not found in %s.", EditFileName, rel)
	if near.score < 0.3 {
		b.WriteString(" No lines of the file resemble it; read the file with read_file and copy the text to replace.")
		return Result{Content: b.String(), IsError: true}
	}
	shown := file[near.start : near.start+near.n]
	if sameButSpace(strings.Join(shown, "\n"), strings.Join(want, "\n")) {
		b.WriteString(" These lines differ from it only in white space (indentation, tabs or spaces):\n")
	} else {
		fmt.Fprintf(&b, " The most similar lines (%.0f%% alike) are:\n", near.score*100)
	}
	quote(&b, shown, near.start+1)
	b.WriteString("Copy the text exactly, without the line numbers, and try again.")
	return Result{Content: b.String(), IsError: true}
}

// maxPlaces is how many places of an ambiguous old_string are named.
const maxPlaces = 20

// ambiguous quotes the first places old occurs in content, n times in all.
func ambiguous(rel, content, old string, n int) Result {
	var at []int // line numbers, from 1, of the first maxPlaces places
	var names []string
	line, counted := 1, 0 // the line number of content[counted]
	for off := 0; len(at) < min(n, maxPlaces); {
		i := off + strings.Index(content[off:], old)
		line += strings.Count(content[counted:i], "\n")
		counted = i
		at = append(at, line)
		names = append(names, fmt.Sprint(line))
		off = i + len(old)
	}
	if n > maxPlaces {
		names = append(names, fmt.Sprintf("and %d more", n-maxPlaces))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: old_string occurs %d times in %s, at lines %s; it must occur once. Add neighbouring lines to old_string to pick one place:\n",
		EditFileName, n, rel, strings.Join(names, ", "))
	file := splitLines(content)
	span := max(len(splitLines(old)), 1)
	for i, line := range at[:min(n, 3)] {
		if i > 0 {
			b.WriteString("--\n")
		}
		start := max(line-2, 0) // one line before
		quote(&b, file[start:min(line+span, len(file))], start+1)
	}
	return Result{Content: strings.TrimSuffix(b.String(), "\n"), IsError: true}
}

// quote writes up to maxQuoted numbered lines.
func quote(b *strings.Builder, lines []string, first int) {
	numberLines(b, lines[:min(len(lines), maxQuoted)], first)
	if len(lines) > maxQuoted {
		fmt.Fprintf(b, "[%d more lines]\n", len(lines)-maxQuoted)
	}
}

// showEdit reports an edit: the lines that now hold repl, numbered.
func showEdit(rel, edited string, at int, repl string) string {
	first := strings.Count(edited[:at], "\n") + 1
	n := max(len(splitLines(repl)), 1)
	file := splitLines(edited)
	var b strings.Builder
	if repl == "" {
		fmt.Fprintf(&b, "Edited %s: removed text at line %d. Lines %d-%d now read:\n", rel, first, max(first-1, 1), min(first+1, len(file)))
		quote(&b, file[max(first-2, 0):min(first+1, len(file))], max(first-1, 1))
	} else {
		fmt.Fprintf(&b, "Edited %s. Lines %d-%d now read:\n", rel, first, first+n-1)
		quote(&b, file[first-1:min(first-1+n, len(file))], first)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
