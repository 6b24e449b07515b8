package grammar

import (
	"errors"
	"strings"
)

// ErrSchema is wrapped by errors about a JSON Schema the converter cannot or
// will not turn into a grammar; ErrSyntax by GBNF parse errors.
var (
	ErrSchema = errors.New("unsupported schema")
	ErrSyntax = errors.New("GBNF syntax error")
)

// Error records what failed, where, and why, in the manner of fs.PathError.
// For a schema, Subject is the tool name (or "schema") and Pointer the JSON
// pointer of the offending part; for GBNF, Subject is the position
// ("line 3, column 7").
type Error struct {
	Op      string // "compile schema", "parse", "tool call grammar", ...
	Subject string // tool name, rule name or position; may be empty
	Pointer string // JSON pointer into the schema, such as /properties/path
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Subject != "" {
		b.WriteString(": ")
		b.WriteString(e.Subject)
	}
	if e.Pointer != "" {
		b.WriteString(" at ")
		b.WriteString(e.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
