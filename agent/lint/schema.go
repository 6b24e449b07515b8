package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// schemaFindings applies the schema rules to one tool: the order and
// presence of its parameters, empty required strings, then what the
// grammar compiler does with its schema (relaxations, nesting, size).
func (l Linter) schemaFindings(t chat.Tool, s toolDef) []Finding {
	var out []Finding
	add := func(param string, rule Rule, format string, args ...any) {
		out = append(out, Finding{Tool: t.Name, Param: param, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	if len(s.params) == 0 {
		add("", NoParameters, "no parameters; give every tool at least one real parameter")
	}
	firstOptional := ""
	for _, p := range s.params {
		switch {
		case !p.required && firstOptional == "":
			firstOptional = p.name
		case p.required && firstOptional != "":
			add(p.name, RequiredLate, "required, listed after the optional %s; list required parameters first", firstOptional)
		}
		if p.required && p.typ == "string" && p.minLength < 1 {
			add(p.name, EmptyString, "required string without minLength 1; an empty string passes")
		}
	}
	for _, d := range deepValues(t.Parameters, l.maxDepth()) {
		add(d.path, DeepNesting, "nested %d levels deep, more than %d; flatten it into parameters of the tool", d.depth, l.maxDepth())
	}
	return append(out, l.grammarFindings(t)...)
}

// grammarFindings compiles the tool's arguments as the call grammar does
// and reports the compiler's error, each of its notes (a maxLength above
// the grammar's repetition limit is MaxLength, the other relaxations
// Relaxed), and a grammar larger than MaxGrammar elements.
func (l Linter) grammarFindings(t chat.Tool) []Finding {
	b := grammar.NewBuilder(grammar.Options{})
	root, err := b.ToolArgs(t.Name, t.Parameters)
	if err != nil {
		msg := err.Error()
		if ge := (*grammar.Error)(nil); errors.As(err, &ge) && ge.Err != nil {
			msg = ge.Err.Error()
			if ge.Pointer != "" {
				msg = ge.Pointer + ": " + msg
			}
		}
		return []Finding{{Tool: t.Name, Rule: BadSchema, Message: "the schema does not compile to a grammar: " + msg}}
	}
	var out []Finding
	for _, n := range b.Notes() {
		rule := Relaxed
		if strings.HasSuffix(n.Pointer, "/maxLength") {
			rule = MaxLength
		}
		out = append(out, Finding{Tool: t.Name, Param: paramPath(n.Pointer), Rule: rule, Message: n.Message})
	}
	g, err := grammar.Parse(b.GBNF(root))
	if err != nil {
		return append(out, Finding{Tool: t.Name, Rule: BadSchema, Message: "the grammar does not parse: " + err.Error()})
	}
	if n := Elements(g); n > l.maxGrammar() {
		out = append(out, Finding{Tool: t.Name, Rule: LargeGrammar, Message: fmt.Sprintf(
			"its grammar has %d elements once llama.cpp expands the repetitions, more than %d; lower maxLength and maxItems, shorten enums, and check them in code", n, l.maxGrammar())})
	}
	return out
}

// paramPath turns a JSON pointer into the schema into the parameter it
// is about: /properties/a/items/properties/b/maxLength is a[].b; a
// pointer at the arguments object itself is "".
func paramPath(ptr string) string {
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties":
			if i+1 < len(segs) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				i++
				b.WriteString(strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i]))
			}
		case "items", "additionalProperties":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(segs) {
				i++
				b.WriteString("[" + segs[i] + "]")
			}
		}
	}
	return b.String()
}

// deep is a value nested deeper than the bound.
type deep struct {
	path  string // a.b[].c
	depth int    // objects and arrays around it, below the arguments
}

// deepValues returns the first value nested deeper than limit under each
// parameter: the depth is the number of objects and arrays between the
// arguments object and the value, so a string parameter is at 0, an
// array of strings at 1 and an array of objects at 2. anyOf, oneOf and
// allOf add no level; a $ref into the schema's $defs or definitions is
// followed, and one that recurses counts as deeper than any bound.
func deepValues(params json.RawMessage, limit int) []deep {
	var root map[string]any
	if json.Unmarshal(params, &root) != nil {
		return nil
	}
	var out []deep
	props, _ := root["properties"].(map[string]any)
	for _, m := range chat.ObjectMembers(propertiesRaw(params)) {
		w := &walker{root: root, limit: limit, seen: map[string]bool{}, steps: 10000}
		w.walk(props[m.Key], m.Key, 0)
		if w.found != nil {
			out = append(out, *w.found)
		}
	}
	return out
}

// propertiesRaw is the raw "properties" object of params, for its order.
func propertiesRaw(params json.RawMessage) json.RawMessage {
	var p struct {
		Properties json.RawMessage `json:"properties"`
	}
	json.Unmarshal(params, &p)
	return p.Properties
}

type walker struct {
	root  map[string]any
	limit int
	seen  map[string]bool // $refs on the path
	steps int             // schemas left to visit: $refs shared by alternatives can multiply the paths
	found *deep
}

// walk visits schema s at path, inside depth objects and arrays.
func (w *walker) walk(s any, path string, depth int) {
	m, ok := s.(map[string]any)
	if !ok || w.found != nil || w.steps <= 0 {
		return
	}
	w.steps--
	if ref, ok := m["$ref"].(string); ok {
		if w.seen[ref] {
			w.found = &deep{path: path, depth: w.limit + 1}
			return
		}
		w.seen[ref] = true
		w.walk(w.resolve(ref), path, depth)
		delete(w.seen, ref)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		alts, _ := m[k].([]any)
		for _, a := range alts {
			w.walk(a, path, depth)
		}
	}
	props, hasProps := m["properties"].(map[string]any)
	items, hasItems := m["items"]
	typ, _ := m["type"].(string)
	if !hasProps && !hasItems && typ != "object" && typ != "array" {
		return
	}
	depth++
	if depth > w.limit {
		w.found = &deep{path: path, depth: depth}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		w.walk(props[k], path+"."+k, depth)
	}
	if hasItems {
		w.walk(items, path+"[]", depth)
	}
}

// resolve returns the schema a local $ref names, or nil.
func (w *walker) resolve(ref string) any {
	var v any = w.root
	for _, seg := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		switch x := v.(type) {
		case map[string]any:
			v = x[strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
