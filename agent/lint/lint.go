// Package lint checks a tool set before a model sees it: rules for clear,
// simple tools and, on request, rules for schemas that llama.cpp's
// grammar handles badly. Every tool costs prompt tokens on every request,
// and every unclear description or pair of similar tools is a wrong call
// waiting to happen.
//
//	tools, err := chat.ParseTools(data) // an OpenAI tools array
//	findings := lint.Linter{Schema: true}.Lint(tools)
//	size := lint.Measure(tools)
//	fmt.Printf("%v, %d findings\n", size, len(findings))
//	for _, f := range findings {
//		fmt.Println(" ", f) // "read_file.path: no description"
//	}
//
// The model learns a tool only from its name, description and schema, so
// the rules are, per tool in order:
//
//   - a description shorter than MinDescription characters, which leaves
//     the model guessing what the tool returns;
//   - per parameter, in the schema's order: no description (is start a
//     line or a byte offset, from 0 or 1?), and a nested object, more
//     structure to get wrong than flat strings;
//   - more than MaxOptional optional parameters, which invite the model to
//     invent values;
//   - the same verb (the name up to its first "_", after an MCP tool's
//     mcp__SERVER__ prefix) as an earlier tool: two
//     tools that do nearly the same thing force a choice the descriptions
//     do not inform.
//
// With Schema, rules follow for schemas that break or weaken llama.cpp's
// grammar (one grammar covers all the tools, so one bad schema can break
// every tool): required parameters listed before optional ones (a
// llama.cpp bug dropped a field in such a mixed order without a warning),
// at least one parameter (an empty object schema has made an invalid
// grammar), required strings that cannot be empty (minLength 1 or more),
// since otherwise the grammar lets the model send "" for an argument the
// tool needs, and values nested deeper than MaxDepth objects and arrays.
// Then the tool's arguments are compiled as the call grammar compiles
// them (package grammar), and each of the compiler's notes is a finding
// in its own words: a maxLength above the grammar's repetition limit
// (grammar.MaxRepetition, 2000), which the grammar then leaves unbounded,
// and every other constraint it relaxes or leaves to validation. A
// schema that does not compile is a finding, and so is a grammar of more
// than MaxGrammar elements once llama.cpp expands its repetitions (a
// large maxLength or maxItems costs about four elements per count).
//
// Split separates the two families, so that a report can show the
// findings of the rules for clear tools apart from the schema rules'.
// Measure gives the tools' size in the prompt, and Request the size of
// a request that carries them.
//
// The rules, thresholds and wording of the rules for clear tools, and the
// advice the schema rules follow, come from the project's specification
// (../shared/seeds: seed 000 Example 7, seed 003, seed 004 Example 2);
// the tests compare with it.
package lint

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
)

// Rule names a lint rule.
type Rule string

// The rules.
const (
	ShortDescription Rule = "short_description" // the tool's description is too short
	NoDescription    Rule = "no_description"    // a parameter without a description
	NestedObject     Rule = "nested_object"     // a parameter of type object
	ManyOptional     Rule = "many_optional"     // too many optional parameters
	SameVerb         Rule = "same_verb"         // the verb of an earlier tool
	RequiredLate     Rule = "required_late"     // a required parameter after an optional one (Schema)
	NoParameters     Rule = "no_parameters"     // no parameter at all (Schema)
	EmptyString      Rule = "empty_string"      // a required string that may be "" (Schema)
	DeepNesting      Rule = "deep_nesting"      // a value nested deeper than MaxDepth (Schema)
	MaxLength        Rule = "max_length"        // a maxLength the grammar cannot enforce (Schema)
	Relaxed          Rule = "grammar_relaxed"   // another constraint the grammar relaxes (Schema)
	LargeGrammar     Rule = "large_grammar"     // a grammar above MaxGrammar elements (Schema)
	BadSchema        Rule = "grammar_error"     // a schema that compiles to no grammar (Schema)
)

// Schema reports whether r is one of the schema rules, which Linter.Schema
// turns on, rather than the rules for clear, simple tools.
func (r Rule) Schema() bool {
	switch r {
	case ShortDescription, NoDescription, NestedObject, ManyOptional, SameVerb:
		return false
	}
	return true
}

// Split returns the findings of the rules for clear, simple tools and
// those of the schema rules, each in its order.
func Split(findings []Finding) (tools, schema []Finding) {
	for _, f := range findings {
		if f.Rule.Schema() {
			schema = append(schema, f)
		} else {
			tools = append(tools, f)
		}
	}
	return tools, schema
}

// Finding is one problem of one tool or parameter.
type Finding struct {
	Tool    string `json:"tool"`
	Param   string `json:"param,omitempty"`
	Rule    Rule   `json:"rule"`
	Message string `json:"message"` // "no description"
}

// String prints the finding as tool.param: message, "read_file.path: no
// description".
func (f Finding) String() string {
	if f.Param == "" {
		return f.Tool + ": " + f.Message
	}
	return f.Tool + "." + f.Param + ": " + f.Message
}

// Linter checks tool sets. The zero value applies the base rules with
// their default thresholds.
type Linter struct {
	// MinDescription is the shortest description, in characters, that
	// passes; 0 means 25.
	MinDescription int
	// MaxOptional is the most optional parameters a tool may have; 0
	// means 2.
	MaxOptional int
	// Schema adds the schema rules.
	Schema bool
	// MaxDepth is the deepest a value may be nested in objects and
	// arrays below the arguments object (Schema); 0 means 2, which lets
	// an array of objects pass.
	MaxDepth int
	// MaxGrammar is the most elements a tool's argument grammar may have
	// once llama.cpp expands it (Schema, see Elements); 0 means 4096.
	MaxGrammar int
}

func (l Linter) maxDepth() int   { return orDefault(l.MaxDepth, 2) }
func (l Linter) maxGrammar() int { return orDefault(l.MaxGrammar, 4096) }

// Lint returns the findings of tools, tool by tool in order.
func (l Linter) Lint(tools []chat.Tool) []Finding {
	var out []Finding
	for i, t := range tools {
		s := readTool(t)
		add := func(param string, rule Rule, format string, args ...any) {
			out = append(out, Finding{Tool: t.Name, Param: param, Rule: rule, Message: fmt.Sprintf(format, args...)})
		}
		if minLen := orDefault(l.MinDescription, 25); utf8.RuneCountInString(s.description) < minLen {
			add("", ShortDescription, "description shorter than %d characters", minLen)
		}
		optional := 0
		for _, p := range s.params {
			if !p.hasDescription {
				add(p.name, NoDescription, "no description")
			}
			if p.typ == "object" {
				add(p.name, NestedObject, "nested object")
			}
			if !p.required {
				optional++
			}
		}
		if optional > orDefault(l.MaxOptional, 2) {
			add("", ManyOptional, "%d optional parameters", optional)
		}
		for _, other := range tools[:i] {
			if verb(t.Name) == verb(other.Name) {
				add("", SameVerb, "same verb as %s", other.Name)
			}
		}
		if l.Schema {
			out = append(out, l.schemaFindings(t, s)...)
		}
	}
	return out
}

// verb is a tool name up to its first "_", after the mcp__SERVER__ prefix
// of an MCP server's tool: the tools of one server share the prefix, not
// a verb.
func verb(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if _, tool, ok := strings.Cut(rest, "__"); ok {
			name = tool
		}
	}
	return strings.SplitN(name, "_", 2)[0]
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Size is what a tool set costs in the prompt.
type Size struct {
	Tools  int `json:"tools"`
	Chars  int `json:"chars"`  // the tools' JSON, joined by commas
	Tokens int `json:"tokens"` // Chars / 4, a rough estimate that needs no tokenizer
}

// Measure returns the size of tools: the characters of their JSON as
// written, joined by commas (the array without its brackets), and a
// quarter of that in tokens, so that two tool sets compare without a
// model.
func Measure(tools []chat.Tool) Size {
	chars := max(len(tools)-1, 0)
	for _, t := range tools {
		chars += utf8.RuneCount(t.Raw)
	}
	return Size{Tools: len(tools), Chars: chars, Tokens: chars / 4}
}

// String prints the size: "8 tools, 1821 characters (about 455 tokens at
// 4 characters per token)".
func (s Size) String() string {
	return fmt.Sprintf("%d tools, %d characters (about %d tokens at 4 characters per token)", s.Tools, s.Chars, s.Tokens)
}

// toolDef is what the rules read of a tool definition.
type toolDef struct {
	description string
	params      []param // in the schema's order
}

type param struct {
	name           string
	typ            string // "" unless "type" is one string
	hasDescription bool
	required       bool
	minLength      int
}

// readTool reads a tool's description and parameters from its JSON.
func readTool(t chat.Tool) toolDef {
	var def struct {
		Function struct {
			Description string `json:"description"`
			Parameters  struct {
				Properties json.RawMessage `json:"properties"`
				Required   []string        `json:"required"`
			} `json:"parameters"`
		} `json:"function"`
	}
	json.Unmarshal(t.Raw, &def)
	out := toolDef{description: def.Function.Description}
	required := map[string]bool{}
	for _, r := range def.Function.Parameters.Required {
		required[r] = true
	}
	for _, m := range chat.ObjectMembers(def.Function.Parameters.Properties) {
		var p struct {
			Type        json.RawMessage  `json:"type"`
			Description *json.RawMessage `json:"description"`
			MinLength   int              `json:"minLength"`
		}
		json.Unmarshal(m.Value, &p)
		var typ string
		json.Unmarshal(p.Type, &typ)
		out.params = append(out.params, param{name: m.Key, typ: typ, hasDescription: p.Description != nil,
			required: required[m.Key], minLength: p.MinLength})
	}
	return out
}
