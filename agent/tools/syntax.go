package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"strings"
)

// A syntaxError says where a file's text stops parsing: the line and
// column, counted from 1, and the parser's message.
type syntaxError struct {
	Line, Column int
	Msg          string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// checkSyntax parses text as the language of the file name says: Go
// (go/parser, the source of a file) and JSON. It returns nil for text that
// parses and for every other kind of file, which it does not read.
func checkSyntax(name, text string) *syntaxError {
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		_, err := parser.ParseFile(token.NewFileSet(), name, text, parser.SkipObjectResolution)
		if err == nil {
			return nil
		}
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return &syntaxError{Line: list[0].Pos.Line, Column: list[0].Pos.Column, Msg: list[0].Msg}
		}
		return &syntaxError{Line: 1, Column: 1, Msg: err.Error()}
	case ".json":
		var raw json.RawMessage // checked, not decoded into values
		err := json.Unmarshal([]byte(text), &raw)
		if err == nil {
			return nil
		}
		at := len(text) // json.Unmarshal's other errors are about the end
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at = int(min(max(se.Offset-1, 0), int64(len(text))))
		}
		line := strings.Count(text[:at], "\n") + 1
		col := at - strings.LastIndexByte(text[:at], '\n')
		return &syntaxError{Line: line, Column: col, Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	return nil
}

// refuseBreak returns the refusal of writing text over rel when that
// breaks its syntax, and false when the write may go ahead: text parses,
// rel is not a file checkSyntax reads, or the text before did not parse
// either (fixing a broken file goes through broken states). prior, called
// only for text that does not parse, gives the file's text; hadFile false
// for a file that does not exist yet, whose text must parse, and ok false
// when the text before cannot be told (the write goes ahead, and fails or
// not on its own). Config.NoSyntaxCheck allows every write.
//
// The refusal quotes, as they would read, the lines first to last (from
// 1) that the change wrote, and the line the parser stopped at when it is
// not among them; with first 0, that line and the one before it.
func (w *Workspace) refuseBreak(tool, rel, text string, prior func() (before string, hadFile, ok bool), first, last int) (Result, bool) {
	if w.cfg.NoSyntaxCheck {
		return Result{}, false
	}
	err := checkSyntax(rel, text)
	if err == nil {
		return Result{}, false
	}
	before, hadFile, ok := prior()
	if !ok || (hadFile && checkSyntax(rel, before) != nil) {
		return Result{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: not written: %s would not parse (%s:%s).", tool, rel, rel, err)
	lines := splitLines(text)
	if first == 0 {
		first, last = err.Line-1, err.Line
	}
	first, last = max(first, 1), min(last, len(lines))
	if first <= last {
		b.WriteString(" It would read:\n")
		quote(&b, lines[first-1:last], first)
	}
	if (err.Line < first || err.Line > last) && err.Line >= 1 && err.Line <= len(lines) {
		b.WriteString("and:\n")
		numberLines(&b, lines[err.Line-1:err.Line], err.Line)
	}
	if hadFile {
		fmt.Fprintf(&b, "%s is unchanged; send the change again with valid code.", rel)
	} else {
		fmt.Fprintf(&b, "%s was not created; send it again with valid code.", rel)
	}
	return Result{Content: b.String(), IsError: true}, true
}
