// Package paths narrows the file arguments of the call grammar to what
// the workspace holds. read_file's and edit_file's path (tools.FileArgs)
// become an enum of the workspace's files, as one would write "enum":
// ["pom.xml", "src/Main.java"] into the schema by hand: a small model
// cannot read or edit a file it made up, because every token that would
// leave the list has no path through the grammar. And
// edit_file's old_string (tools.FileTextArgs), in a file the conversation
// has read, must be text the file holds now (grammar.SubstringOf): an edit
// whose old_string is not in the file, the commonest failure of small
// models, cannot be written. The choices among the files, and among their
// lines, stay the model's.
//
// Only the grammar narrows. The tools the prompt shows keep their schemas,
// so the prompt, and the prompt cache, do not change as files come and go,
// and a call written without the grammar is validated against the real
// schema. A workspace with more than MaxFiles files, or none, keeps its
// paths free: an enum that long costs more than it saves. A read file
// larger than MaxTextBytes keeps its old_string free.
package paths

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/grammar"
)

// MaxFiles is the most files an enum lists.
const MaxFiles = 256

// MaxTextBytes is the largest file whose text an argument is narrowed to.
// Its grammar has about two rules per character.
const MaxTextBytes = 16 << 10

// Narrow returns defs with every existing-file argument of set's tools
// restricted to ws's files, and every file-text argument restricted to the
// text of the file it names when read lists that file (paths relative to
// ws's root, as the conversation read them). It returns nil when nothing
// narrows: no such argument, no files, more than MaxFiles, or a walk that
// failed. The result is for the grammar only (model.Request.GrammarTools).
func Narrow(ctx context.Context, defs []chat.Tool, set *tools.Set, ws *tools.Workspace, read []string) []chat.Tool {
	if set == nil || ws == nil {
		return nil
	}
	var files []string
	var out []chat.Tool
	var shown map[string]string // the read files' text
	for i, d := range defs {
		args := set.ExistingFileArgs(d.Name)
		if len(args) == 0 {
			continue
		}
		if files == nil {
			fs, complete, err := ws.Files(ctx, MaxFiles)
			if err != nil || !complete || len(fs) == 0 {
				return nil
			}
			files = fs
		}
		params := d.Parameters
		for _, a := range args {
			p, err := grammar.WithEnum(params, a, files)
			if err != nil {
				return nil // a schema without the argument: leave it free
			}
			params = p
		}
		if text, file, ok := set.FileTextArg(d.Name); ok {
			if shown == nil { // read once, for every such tool
				shown = texts(ws, read, files)
			}
			params = withTexts(d.Parameters, params, text, file, files, shown)
		}
		if out == nil {
			out = append([]chat.Tool(nil), defs...)
		}
		out[i].Parameters = params
	}
	return out
}

// withTexts returns the arguments' schema as one branch per read file, its
// file argument that file and its text argument the file's substrings,
// and a last branch for the other files (narrowed, as Narrow made it).
// Without read files, or when a branch cannot be built, narrowed as it is.
func withTexts(orig, narrowed json.RawMessage, text, file string, files []string, read map[string]string) json.RawMessage {
	if len(read) == 0 {
		return narrowed
	}
	var branches []string
	var others []string
	for _, f := range files {
		content, ok := read[f]
		if !ok {
			others = append(others, f)
			continue
		}
		b, err := grammar.WithKeyword(orig, file, "const", f)
		if err == nil {
			b, err = grammar.WithKeyword(b, text, grammar.SubstringOf, content)
		}
		if err != nil {
			return narrowed
		}
		branches = append(branches, string(b))
	}
	if len(others) > 0 {
		b, err := grammar.WithEnum(orig, file, others)
		if err != nil {
			return narrowed
		}
		branches = append(branches, string(b))
	}
	return json.RawMessage(`{"anyOf": [` + strings.Join(branches, ", ") + `]}`)
}

// Texts returns the text of each file of read that the tools can read
// back (see texts), in the order of read: what a reply may copy.
func Texts(ws *tools.Workspace, read []string) []string {
	shown := texts(ws, read, read)
	out := make([]string, 0, len(shown))
	for _, f := range read {
		if t, ok := shown[f]; ok {
			out = append(out, t)
		}
	}
	return out
}

// texts returns the text of each file of read that exists (in files), is
// UTF-8 and holds at most MaxTextBytes, with \r\n read as \n (edit_file
// forgives \n against \r\n). The files are read as the tools read them
// (Workspace.ReadFile): beneath the root, regular files only, and never
// more than MaxTextBytes of one.
func texts(ws *tools.Workspace, read, files []string) map[string]string {
	out := map[string]string{}
	for _, f := range read {
		if _, seen := out[f]; seen || !slices.Contains(files, f) {
			continue
		}
		b, err := ws.ReadFile(f, MaxTextBytes)
		if err != nil || len(b) == 0 || !utf8.Valid(b) {
			continue
		}
		out[f] = strings.ReplaceAll(string(b), "\r\n", "\n")
	}
	return out
}
