package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Reply is a model's reply as a client validates it: why it stopped and
// its calls, arguments as JSON text.
type Reply struct {
	FinishReason string          // "stop", "tool_calls", "length", ...
	Calls        []chat.ToolCall // in the order the model wrote them
}

// Check names a kind of validation problem.
type Check string

// The checks, in the order Validate reports them.
const (
	CheckLength          Check = "length"           // finish_reason length: the last call may be cut off
	CheckEmptyID         Check = "empty_id"         // a call without an id
	CheckDuplicateID     Check = "duplicate_id"     // two calls with one id
	CheckUnknownTool     Check = "unknown_tool"     // a tool that was not offered
	CheckInvalidJSON     Check = "invalid_json"     // arguments that do not parse
	CheckNotObject       Check = "not_object"       // arguments that are not an object
	CheckMissingArgument Check = "missing_argument" // a required argument is absent
	CheckUnknownArgument Check = "unknown_argument" // an argument the schema does not declare
	CheckSchema          Check = "schema"           // any other schema violation (type, enum, length, ...)
)

// Violation is one problem with a reply. Call is the call's index, or -1
// for the reply as a whole.
type Violation struct {
	Call    int    `json:"call"`
	Check   Check  `json:"check"`
	Message string `json:"message"`
}

// String prints the violation as a model reads it in a retry:
// "call 2: missing required argument 'path'".
func (v Violation) String() string {
	if v.Call < 0 {
		return v.Message
	}
	return fmt.Sprintf("call %d: %s", v.Call, v.Message)
}

// Validator checks replies against the tools offered. It compiles each
// tool's schema once with a JSON Schema validator. It is safe for
// concurrent use.
type Validator struct {
	tools map[string]*toolSchema
}

type toolSchema struct {
	compiled   *jsonschema.Schema
	required   []string
	properties []string
	closed     bool // no arguments beyond the declared properties
}

// New compiles the tools' schemas. A schema the validator cannot
// compile is an error naming the tool.
func New(tools []chat.Tool) (*Validator, error) {
	v := &Validator{tools: map[string]*toolSchema{}}
	for _, t := range tools {
		ts, err := compileTool(t)
		if err != nil {
			return nil, &chat.Error{Op: "compile tool schema", Subject: t.Name, Err: err}
		}
		v.tools[t.Name] = ts
	}
	return v, nil
}

func compileTool(t chat.Tool) (*toolSchema, error) {
	params := grammar.ArgsSchema(t.Parameters)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	compiled, err := c.Compile("tool.json")
	if err != nil {
		return nil, err
	}
	var shape struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	json.Unmarshal(params, &shape)
	ts := &toolSchema{compiled: compiled, required: shape.Required}
	for k := range shape.Properties {
		ts.properties = append(ts.properties, k)
	}
	// As in the grammar package, declared properties close the object
	// unless additionalProperties says otherwise: an unknown argument is a
	// mistake of the model.
	add := strings.TrimSpace(string(shape.AdditionalProperties))
	ts.closed = add == "false" || (add == "" && len(shape.Properties) > 0)
	return ts, nil
}

// Validate returns every problem of a reply: the finish reason first,
// then per call its id, tool, JSON and arguments.
func (v *Validator) Validate(r Reply) []Violation {
	var out []Violation
	if r.FinishReason == "length" {
		out = append(out, Violation{-1, CheckLength, "finish_reason is length: the output hit max_tokens and the last call may be incomplete"})
	}
	ids := map[string]bool{}
	for i, c := range r.Calls {
		add := func(check Check, format string, args ...any) {
			out = append(out, Violation{i, check, fmt.Sprintf(format, args...)})
		}
		switch {
		case c.ID == "":
			add(CheckEmptyID, "empty id")
		case ids[c.ID]:
			add(CheckDuplicateID, "duplicate id %s", c.ID)
		}
		ids[c.ID] = true
		ts, ok := v.tools[c.Function.Name]
		if !ok {
			add(CheckUnknownTool, "unknown tool '%s'", c.Function.Name)
			continue
		}
		out = append(out, ts.check(i, c.Function.Arguments)...)
	}
	return out
}

// The errors of History.
var (
	ErrDuplicateCallID = errors.New("duplicate call id")
	ErrOrphanResult    = errors.New("tool result for no earlier call")
)

// History checks the call ids of a conversation a caller sends:
// no two calls have one id, in one message or in two, and every tool
// result's id names an earlier call. A result names its call by id, and
// formats that render ids show them to the model, so a repeated id or an
// orphan result pairs a result with the wrong call. Calls and results
// without ids are paired by position and pass. It returns an *Error
// naming the message and the id, wrapping ErrDuplicateCallID or
// ErrOrphanResult, or nil.
func History(msgs []chat.Message) error {
	calls := map[string]int{} // id -> the message of its call
	for i, m := range msgs {
		subject := fmt.Sprintf("message %d", i)
		if id := m.ToolCallID; m.Role == "tool" && id != "" {
			if _, ok := calls[id]; !ok {
				return &chat.Error{Op: "validate history", Subject: subject, Err: fmt.Errorf("%w: id %q", ErrOrphanResult, id)}
			}
		}
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				continue
			}
			if j, dup := calls[c.ID]; dup {
				return &chat.Error{Op: "validate history", Subject: subject,
					Err: fmt.Errorf("%w %q: message %d has a call with this id", ErrDuplicateCallID, c.ID, j)}
			}
			calls[c.ID] = i
		}
	}
	return nil
}

func (ts *toolSchema) check(call int, arguments string) []Violation {
	var out []Violation
	add := func(check Check, format string, args ...any) {
		out = append(out, Violation{call, check, fmt.Sprintf(format, args...)})
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(arguments))
	if err != nil {
		add(CheckInvalidJSON, "arguments are not valid JSON (%s)", jsonProblem(arguments))
		return out
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		add(CheckNotObject, "arguments are not a JSON object")
		return out
	}
	for _, r := range ts.required {
		if _, ok := obj[r]; !ok {
			add(CheckMissingArgument, "missing required argument '%s'", r)
		}
	}
	for _, k := range objectKeys(arguments) {
		if ts.closed && !slices.Contains(ts.properties, k) {
			add(CheckUnknownArgument, "unknown argument '%s'", k)
		}
	}
	var ve *jsonschema.ValidationError
	if err := ts.compiled.Validate(inst); errors.As(err, &ve) {
		for _, leaf := range leaves(ve) {
			if msg := schemaMessage(leaf); msg != "" {
				add(CheckSchema, "%s", msg)
			}
		}
	}
	return out
}

// objectKeys returns the keys of a JSON object in the order written.
func objectKeys(text string) []string {
	dec := json.NewDecoder(strings.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		if k, ok := t.(string); ok {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

var printer = message.NewPrinter(language.English)

// schemaMessage words a validator error for the model. Required and
// additional properties are reported by Validate itself.
func schemaMessage(e *jsonschema.ValidationError) string {
	where := "arguments"
	if len(e.InstanceLocation) > 0 {
		where = "argument '" + strings.Join(e.InstanceLocation, "/") + "'"
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required, *kind.AdditionalProperties, *kind.FalseSchema:
		return ""
	case *kind.Type:
		return fmt.Sprintf("%s must be %s", where, article(strings.Join(k.Want, " or ")))
	}
	return where + ": " + e.ErrorKind.LocalizedString(printer)
}

func article(typ string) string {
	if strings.HasPrefix(typ, "a") || strings.HasPrefix(typ, "i") || strings.HasPrefix(typ, "o") {
		return "an " + typ
	}
	return "a " + typ
}

// jsonProblem describes why text is not JSON, in Jackson's words for a cut
// off object or array, the words Java clients of llama-server print.
func jsonProblem(text string) string {
	var v any
	err := json.Unmarshal([]byte(text), &v)
	if err == nil {
		return "valid"
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Error() != "unexpected end of JSON input" {
		return err.Error()
	}
	var open []byte
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == '{' || c == '['):
			open = append(open, c)
		case !inString && (c == '}' || c == ']') && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	switch {
	case inString:
		return "Unexpected end-of-input: was expecting closing quote for a String value"
	case len(open) > 0 && open[len(open)-1] == '{':
		return "Unexpected end-of-input: expected close marker for Object"
	case len(open) > 0:
		return "Unexpected end-of-input: expected close marker for Array"
	}
	return "Unexpected end-of-input"
}
