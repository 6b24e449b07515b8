package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Tool is a function a model may call: its name and the JSON Schema of its
// arguments (empty means any object).
type Tool struct {
	Name       string
	Parameters json.RawMessage
}

// ChoiceMode is the kind of tool_choice.
type ChoiceMode int

const (
	// ChoiceAuto lets the model decide: the grammar is lazy and starts at the
	// format's trigger, and the text before it stays free.
	ChoiceAuto ChoiceMode = iota
	// ChoiceRequired demands a call from the first token (after an optional
	// reasoning block).
	ChoiceRequired
	// ChoiceNone means no grammar: the model may not call a tool.
	ChoiceNone
	// ChoiceFunction demands a call of one named function.
	ChoiceFunction
)

// Choice is tool_choice: a mode, and the function for ChoiceFunction.
type Choice struct {
	Mode     ChoiceMode
	Function string
}

// ParseChoice reads tool_choice as the OpenAI API sends it: "auto", "none",
// "required", or {"type": "function", "function": {"name": "..."}}. An
// empty value is auto.
func ParseChoice(raw json.RawMessage) (Choice, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return Choice{}, nil
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		switch str {
		case "auto":
			return Choice{Mode: ChoiceAuto}, nil
		case "none":
			return Choice{Mode: ChoiceNone}, nil
		case "required":
			return Choice{Mode: ChoiceRequired}, nil
		}
		return Choice{}, &Error{Op: "tool choice", Subject: str, Err: errors.New(`want "auto", "none", "required" or a function object`)}
	}
	var obj struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Type != "function" || obj.Function.Name == "" {
		return Choice{}, &Error{Op: "tool choice", Subject: s, Err: errors.New(`want {"type": "function", "function": {"name": ...}}`)}
	}
	return Choice{Mode: ChoiceFunction, Function: obj.Function.Name}, nil
}

// Format is the text shape of a call, for the grammar: the building blocks
// the chat-format families fill in.
type Format struct {
	Name      string
	ListOpen  string // before all calls, e.g. "[TOOL_CALLS][" (Mistral)
	ListClose string // after all calls, e.g. "]"
	Open      string // before each call, e.g. "<tool_call>\n"
	Close     string // after each call, e.g. "\n</tool_call>"
	Separator string // between parallel calls
	NameKey   string // key of the function name, "name"
	ArgsKey   string // key of the arguments, "arguments" (Llama 3: "parameters")
	// IDKey, when set, is a key after the arguments whose value matches
	// IDRule, a GBNF expression (Mistral: "id", [a-zA-Z0-9]{9}).
	IDKey, IDRule string
	// Triggers are the texts that start a call, for lazy grammars.
	Triggers []string
}

// Hermes is the <tool_call> JSON form of Hermes, Qwen 2.5 and Qwen3.
var Hermes = Format{
	Name: "hermes", Open: "<tool_call>\n", Close: "\n</tool_call>", Separator: "\n",
	NameKey: "name", ArgsKey: "arguments", Triggers: []string{"<tool_call>"},
}

// Block is a delimited block allowed before a required call, such as
// reasoning between <think> and </think>.
type Block struct {
	Open, Close string
}

// CallOptions configures a tool-call grammar. The zero value is tool_choice
// auto with one call.
type CallOptions struct {
	Options
	// Choice is tool_choice.
	Choice Choice
	// Parallel is parallel_tool_calls: false allows exactly one call, true
	// one or more.
	Parallel bool
	// MaxCalls caps the calls when Parallel (0: no cap).
	MaxCalls int
	// Reasoning, when set, is a block the model may write before a required
	// call.
	Reasoning *Block
}

// CallGrammar is a compiled tool-call grammar.
type CallGrammar struct {
	GBNF string // the grammar, root rule first
	// Lazy grammars stay inactive until one of Triggers appears in the
	// output (tool_choice auto). The engine uses a trigger token when the
	// trigger is a single token of the vocabulary, else a pattern.
	Lazy     bool
	Triggers []string
	// StartTriggers wake a lazy grammar only at the start of the output,
	// after white space (llama-server's full-output trigger patterns).
	StartTriggers []string
	Notes         []Note // constraints left to validation
}

// ToolCalls compiles the grammar for calls of tools in format f. It returns
// nil for tool_choice none. An invalid tool schema fails with an *Error
// naming that tool and the JSON pointer of the problem.
func ToolCalls(f Format, tools []Tool, opts CallOptions) (*CallGrammar, error) {
	if opts.Choice.Mode == ChoiceNone {
		return nil, nil
	}
	tools, err := chooseTools(tools, opts.Choice)
	if err != nil {
		return nil, err
	}
	b := NewBuilder(opts.Options)
	var objects []string
	for _, t := range tools {
		r, err := b.callObject(f, t)
		if err != nil {
			return nil, err
		}
		objects = append(objects, r)
	}
	obj := b.Rule("call-object", strings.Join(objects, " | "))
	call := b.Rule("call", join(join(quoteOr(f.Open), obj), quoteOr(f.Close)))
	calls := call
	if opts.Parallel {
		max := -1
		if opts.MaxCalls > 0 {
			max = opts.MaxCalls - 1
		}
		calls = b.Rule("calls", call+" "+repetition("("+join(quoteOr(f.Separator), call)+")", 0, max, ""))
	}
	if f.ListOpen != "" || f.ListClose != "" {
		calls = b.Rule("call-list", join(join(quoteOr(f.ListOpen), calls), quoteOr(f.ListClose)))
	}
	g := &CallGrammar{}
	root := calls
	switch {
	case opts.Choice.Mode == ChoiceAuto:
		g.Lazy, g.Triggers = true, f.Triggers
	case opts.Reasoning != nil:
		r := b.block("reasoning", *opts.Reasoning)
		root = r + "? " + calls
	}
	g.GBNF = b.GBNF(b.Rule("root", root))
	g.Notes = b.Notes()
	return g, nil
}

// chooseTools applies ChoiceFunction and checks the names.
func chooseTools(tools []Tool, c Choice) ([]Tool, error) {
	seen := map[string]bool{}
	for _, t := range tools {
		if t.Name == "" {
			return nil, &Error{Op: "tool call grammar", Err: errors.New("a tool has no name")}
		}
		if seen[t.Name] {
			return nil, &Error{Op: "tool call grammar", Subject: t.Name, Err: errors.New("two tools have this name")}
		}
		seen[t.Name] = true
	}
	if c.Mode == ChoiceFunction {
		i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == c.Function })
		if i < 0 {
			return nil, &Error{Op: "tool call grammar", Subject: c.Function, Err: errors.New("tool_choice names a function that is not among the tools")}
		}
		return tools[i : i+1], nil
	}
	if len(tools) == 0 {
		return nil, &Error{Op: "tool call grammar", Err: errors.New("no tools")}
	}
	return tools, nil
}

// callObject is {"name": "<tool>", "arguments": {...}} for one tool.
func (b *Builder) callObject(f Format, t Tool) (string, error) {
	args, err := b.ToolArgs(t.Name, t.Parameters)
	if err != nil {
		return "", err
	}
	body := fmt.Sprintf(`"{" space %s space ":" space %s space "," space %s space ":" space %s`,
		Quote(jsonString(f.NameKey)), Quote(jsonString(t.Name)), Quote(jsonString(f.ArgsKey)), args)
	if f.IDKey != "" {
		body += fmt.Sprintf(` "," space %s space ":" space "\"" %s "\"" space`, Quote(jsonString(f.IDKey)), f.IDRule)
	}
	return b.Rule("tool-"+t.Name, body+` "}" space`), nil
}

// ArgsSchema is the schema of a tool's arguments: params, or any object
// when the tool declares none. A call's arguments are always an object, so
// a schema without "type" ({} included, which alone admits any value, 42
// too) gets "type": "object" in front of its keywords.
func ArgsSchema(params json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{"type": "object"}`)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(t, &top) != nil {
		return params // not an object: the schema compiler reports it
	}
	if _, ok := top["type"]; ok {
		return params
	}
	if len(top) == 0 {
		return json.RawMessage(`{"type": "object"}`)
	}
	return json.RawMessage(`{"type": "object", ` + string(bytes.TrimSpace(t[1:])))
}

// ToolArgs adds the rule tool-NAME-args for the arguments of tool name
// with parameters params (see ArgsSchema) and returns its name.
func (b *Builder) ToolArgs(name string, params json.RawMessage) (string, error) {
	return b.Schema("tool-"+name+"-args", name, ArgsSchema(params))
}

// quoteOr quotes s, or returns "" for an empty s (no element).
func quoteOr(s string) string {
	if s == "" {
		return ""
	}
	return Quote(s)
}

// block is Open, any text without Close, Close, then up to two newlines.
func (b *Builder) block(name string, blk Block) string {
	until := b.Until(name+"-text", blk.Close)
	return b.Rule(name, Quote(blk.Open)+" "+until+" "+Quote(blk.Close)+` "\n"{0,2}`)
}

// Until adds rules matching any text that does not contain word, and
// returns the first rule's name: the automaton llama.cpp writes as until-N
// rules, built here with the KMP failure function so that overlapping
// prefixes such as "aab" are handled.
func (b *Builder) Until(name, word string) string {
	w := []rune(word)
	if len(w) == 0 {
		return `""`
	}
	fail := make([]int, len(w)+1) // KMP failure function
	fail[0] = -1
	for i := 1; i <= len(w); i++ {
		k := fail[i-1]
		for k >= 0 && w[k] != w[i-1] {
			k = fail[k]
		}
		fail[i] = k + 1
	}
	next := func(state int, r rune) int {
		for state >= 0 && (state == len(w) || w[state] != r) {
			state = fail[state]
		}
		return state + 1
	}
	names := make([]string, len(w))
	for i := range w {
		names[i] = fmt.Sprintf("%s-%02d", name, i)
	}
	for i := range w {
		// Characters that lead to a non-zero state other than through
		// "anything else".
		trans := map[rune]int{}
		for _, r := range w {
			if j := next(i, r); j > 0 {
				trans[r] = j
			}
		}
		keys := make([]rune, 0, len(trans))
		for r := range trans {
			keys = append(keys, r)
		}
		slices.Sort(keys)
		alts := []string{""}
		var others strings.Builder
		for _, r := range keys {
			others.WriteString(ClassChar(r))
			if j := trans[r]; j < len(w) {
				alts = append(alts, "["+ClassChar(r)+"] "+names[j])
			}
		}
		alts = append(alts, "[^"+others.String()+"] "+names[0])
		b.bodies[b.Rule(names[i], "\x00pending "+names[i])] = strings.Join(alts, " | ")
	}
	return names[0]
}

// PromptBased compiles the grammar of prompt-based tool calling, for models
// whose template has no tool support: one JSON object per reply, either
// {"tool": NAME, "arguments": {...}} with one branch per tool, or
// {"answer": TEXT}.
func PromptBased(tools []Tool, opts CallOptions) (*CallGrammar, error) {
	if opts.Choice.Mode == ChoiceNone {
		return nil, nil
	}
	tools, err := chooseTools(tools, opts.Choice)
	if err != nil {
		return nil, err
	}
	b := NewBuilder(opts.Options)
	var branches []string
	for _, t := range tools {
		args, err := b.ToolArgs(t.Name, t.Parameters)
		if err != nil {
			return nil, err
		}
		branches = append(branches, b.Rule("tool-"+t.Name, fmt.Sprintf(`"{" space "\"tool\"" space ":" space %s space "," space "\"arguments\"" space ":" space %s "}" space`,
			Quote(jsonString(t.Name)), args)))
	}
	if opts.Choice.Mode == ChoiceAuto {
		branches = append(branches, b.Rule("answer", `"{" space "\"answer\"" space ":" space `+b.Primitive("string")+` "}" space`))
	}
	g := &CallGrammar{GBNF: b.GBNF(b.Rule("root", strings.Join(branches, " | ")))}
	g.Notes = b.Notes()
	return g, nil
}

// ParseTools reads tools in the OpenAI form, a JSON array of
// {"type": "function", "function": {"name": ..., "parameters": {...}}}.
// A bare {"name": ..., "parameters": ...} entry is accepted too.
func ParseTools(data []byte) ([]Tool, error) {
	var raw []struct {
		Type     string `json:"type"`
		Function *struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &Error{Op: "parse tools", Err: err}
	}
	tools := make([]Tool, len(raw))
	for i, r := range raw {
		if r.Function != nil {
			tools[i] = Tool{Name: r.Function.Name, Parameters: r.Function.Parameters}
		} else {
			tools[i] = Tool{Name: r.Name, Parameters: r.Parameters}
		}
		if tools[i].Name == "" {
			return nil, &Error{Op: "parse tools", Pointer: fmt.Sprintf("/%d", i), Err: errors.New("tool has no name")}
		}
	}
	return tools, nil
}
