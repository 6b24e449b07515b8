package grammar

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Whitespace says what the grammar allows between JSON tokens.
type Whitespace int

const (
	// WhitespaceSingle allows at most one space: compact JSON and the
	// ", " and ": " that Python's json.dumps writes. It is the default.
	WhitespaceSingle Whitespace = iota
	// WhitespaceCompact allows none: {"a":1,"b":2}.
	WhitespaceCompact
	// WhitespaceFlexible is llama.cpp's rule: nothing, a space, or one or
	// two newlines and up to 20 spaces or tabs. An unsure model spends
	// that freedom on tabs and newlines, tokens that carry nothing.
	WhitespaceFlexible
)

// ParseWhitespace reads a Whitespace by name: "single", "compact" or
// "flexible".
func ParseWhitespace(name string) (Whitespace, error) {
	switch name {
	case "single", "":
		return WhitespaceSingle, nil
	case "compact":
		return WhitespaceCompact, nil
	case "flexible":
		return WhitespaceFlexible, nil
	}
	return 0, &Error{Op: "whitespace", Subject: name, Err: errors.New("want single, compact or flexible")}
}

func (w Whitespace) rule() string {
	switch w {
	case WhitespaceCompact:
		return `""`
	case WhitespaceFlexible:
		return `| " " | "\n"{1,2} [ \t]{0,20}`
	}
	return `| " "`
}

// Options configures grammar construction. The zero value is the default.
type Options struct {
	// Whitespace between JSON tokens (default WhitespaceSingle).
	Whitespace Whitespace
	// MaxRepetition is the largest bound written into a {m,n} repetition
	// (default 2000, the most llama.cpp's parser accepts). A larger
	// maxLength, maxItems or minimum count is relaxed in the grammar,
	// reported as a Note, and left to validation.
	MaxRepetition int
	// MaxObjectStates bounds the grammar of one object whose optional
	// properties may come in any order, each at most once: it needs
	// (required+1) × 2^optional states (default 64: up to 6 optional
	// properties beside none required, 4 beside 3). An object over the
	// bound takes its properties in declared order, each optional one still
	// optional, and a Note says so.
	MaxObjectStates int
}

func (o Options) maxRep() int {
	if o.MaxRepetition <= 0 {
		return 2000
	}
	return o.MaxRepetition
}

func (o Options) maxObjectStates() int {
	if o.MaxObjectStates <= 0 {
		return 64
	}
	return o.MaxObjectStates
}

// Note reports a schema constraint the grammar does not enforce, so that a
// validator must check it afterwards.
type Note struct {
	Tool    string // the tool the schema belongs to, if any
	Pointer string // JSON pointer of the constraint
	Message string
}

func (n Note) String() string {
	s := n.Pointer + ": " + n.Message
	if n.Tool != "" {
		s = n.Tool + " " + s
	}
	return s
}

// Builder collects named GBNF rules. Schemas and tool calls add rules to it;
// GBNF prints them with root first.
type Builder struct {
	opts   Options
	names  []string
	bodies map[string]string
	notes  []Note
}

// NewBuilder returns an empty builder with the space rule for opts.
func NewBuilder(opts Options) *Builder {
	b := &Builder{opts: opts, bodies: map[string]string{}}
	b.Rule("space", opts.Whitespace.rule())
	return b
}

var invalidRuleChars = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// Rule adds a rule and returns its name: name sanitized to [a-zA-Z0-9-],
// reused when the same rule exists, numbered when another rule has it.
func (b *Builder) Rule(name, body string) string {
	name = strings.Trim(invalidRuleChars.ReplaceAllString(name, "-"), "-")
	if name == "" {
		name = "rule"
	}
	if _, reserved := primitives[name]; reserved {
		name += "-"
	}
	for i := 0; ; i++ {
		n := name
		if i > 0 {
			n = name + strconv.Itoa(i)
		}
		old, ok := b.bodies[n]
		if !ok {
			b.names = append(b.names, n)
			b.bodies[n] = body
			return n
		}
		if old == body {
			return n
		}
	}
}

// Has reports whether a rule exists.
func (b *Builder) Has(name string) bool {
	_, ok := b.bodies[name]
	return ok
}

// Notes returns the constraints the grammar relaxed or left out.
func (b *Builder) Notes() []Note { return b.notes }

func (b *Builder) note(tool, ptr, format string, args ...any) {
	b.notes = append(b.notes, Note{Tool: tool, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// GBNF prints the grammar with rule root first and the others in the order
// they were added. root must have been added.
func (b *Builder) GBNF(root string) string {
	var s strings.Builder
	write := func(n string) {
		s.WriteString(n)
		s.WriteString(" ::= ")
		s.WriteString(b.bodies[n])
		s.WriteByte('\n')
	}
	write(root)
	for _, n := range b.names {
		if n != root {
			write(n)
		}
	}
	return s.String()
}

// builtin is a primitive rule and the rules it uses.
type builtin struct {
	body string
	deps []string
}

// primitives are llama.cpp's JSON rules (common/json-schema-to-grammar.cpp).
var primitives = map[string]builtin{
	"boolean":          {`("true" | "false") space`, nil},
	"decimal-part":     {`[0-9]{1,16}`, nil},
	"integral-part":    {`[0] | [1-9] [0-9]{0,15}`, nil},
	"number":           {`("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)? space`, []string{"integral-part", "decimal-part"}},
	"integer":          {`("-"? integral-part) space`, []string{"integral-part"}},
	"value":            {`object | array | string | number | boolean | null`, []string{"object", "array", "string", "number", "boolean", "null"}},
	"object":           {`"{" space ( string ":" space value ("," space string ":" space value)* )? "}" space`, []string{"string", "value"}},
	"array":            {`"[" space ( value ("," space value)* )? "]" space`, []string{"value"}},
	"uuid":             {`"\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12} "\"" space`, nil},
	"char":             {`[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})`, nil},
	"string":           {`"\"" char* "\"" space`, []string{"char"}},
	"null":             {`"null" space`, nil},
	"date":             {`[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )`, nil},
	"time":             {`([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? ( "Z" | ( "+" | "-" ) ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )`, nil},
	"date-time":        {`date "T" time`, []string{"date", "time"}},
	"date-string":      {`"\"" date "\"" space`, []string{"date"}},
	"time-string":      {`"\"" time "\"" space`, []string{"time"}},
	"date-time-string": {`"\"" date-time "\"" space`, []string{"date-time"}},
}

// Primitive adds a built-in JSON rule ("string", "number", "value", ...)
// with the rules it uses and returns its name.
func (b *Builder) Primitive(name string) string {
	p, ok := primitives[name]
	if !ok {
		panic("grammar: unknown primitive " + name)
	}
	if !b.Has(name) {
		b.names = append(b.names, name)
		b.bodies[name] = p.body
		for _, d := range p.deps {
			b.Primitive(d)
		}
	}
	return name
}
