package grammar

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Schema compiles a JSON Schema into GBNF rules of b and returns the name of
// the rule that matches a JSON value valid for it. name prefixes the rule
// names; tool names the schema's owner in errors and notes (it may be
// empty). An unsupported or invalid part is an *Error naming the tool and
// the JSON pointer of that part, wrapping ErrSchema.
//
// Supported: type (one or a list), properties, required, additionalProperties
// (false, true or a schema), enum, const, oneOf, anyOf, allOf (merged), $ref
// to #/$defs/... or #/definitions/..., items, prefixItems, minItems,
// maxItems, minLength, maxLength, pattern (see pattern.go for the regex
// subset), integer minimum/maximum (also exclusive), and the formats date,
// time, date-time and uuid. Other constraints (number bounds, multipleOf,
// uniqueItems, not, ...) are left to validation and reported by Notes.
func (b *Builder) Schema(name, tool string, schema json.RawMessage) (string, error) {
	doc, err := decodeOrdered(schema)
	if err != nil {
		return "", &Error{Op: "compile schema", Subject: toolOr(tool), Err: fmt.Errorf("%w: not JSON: %v", ErrSchema, err)}
	}
	c := &converter{b: b, tool: tool, doc: doc, refs: map[string]string{}}
	r, err := c.visit(doc, name, "")
	if err != nil || len(c.refs) == 0 {
		return r, err
	}
	// $refs can loop without writing anything ({"$ref": "#"}), which
	// would be left recursion in the grammar.
	src := b.GBNF(r)
	if !b.Has("root") {
		src = "root ::= " + r + "\n" + src
	}
	g, err := Parse(src)
	if err == nil {
		err = g.Validate("root")
	}
	if err != nil {
		return "", c.fail("", "the $ref cycle matches no value: %v", err)
	}
	return r, nil
}

func toolOr(tool string) string {
	if tool == "" {
		return "schema"
	}
	return tool
}

// converter holds the state of one schema's compilation.
type converter struct {
	b    *Builder
	tool string
	doc  any               // the whole schema, for $ref
	refs map[string]string // $ref -> rule name, set before the rule is built
}

func (c *converter) fail(ptr, format string, args ...any) error {
	return &Error{Op: "compile schema", Subject: toolOr(c.tool), Pointer: ptrOr(ptr), Err: fmt.Errorf("%w: %s", ErrSchema, fmt.Sprintf(format, args...))}
}

func ptrOr(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func (c *converter) note(ptr, format string, args ...any) {
	c.b.note(c.tool, ptrOr(ptr), format, args...)
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// visit returns the rule for a schema at pointer ptr.
func (c *converter) visit(s any, name, ptr string) (string, error) {
	switch x := s.(type) {
	case bool:
		if !x {
			return "", c.fail(ptr, "the schema false allows no value")
		}
		return c.b.Primitive("value"), nil
	case *object:
		return c.visitObject(x, name, ptr)
	}
	return "", c.fail(ptr, "a schema must be an object or a boolean, not %s", encodeCompact(s))
}

func (c *converter) visitObject(s *object, name, ptr string) (string, error) {
	if ref, ok := s.get("$ref"); ok {
		return c.ref(ref, name, ptr)
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := s.get(k); ok {
			return c.union(s, k, alts, name, ptr)
		}
	}
	if all, ok := s.get("allOf"); ok {
		merged, err := c.mergeAllOf(s, all, ptr)
		if err != nil {
			return "", err
		}
		return c.visitObject(merged, name, ptr)
	}
	if v, ok := s.get("const"); ok {
		return c.b.Rule(name, Quote(encodeCompact(v))+" space"), nil
	}
	if v, ok := s.get("enum"); ok {
		return c.enum(v, name, ptr)
	}
	c.noteUnenforced(s, ptr)
	typ, _ := s.get("type")
	switch t := typ.(type) {
	case []any:
		return c.typeUnion(s, t, name, ptr)
	case string:
		return c.typed(s, t, name, ptr)
	case nil:
		return c.untyped(s, name, ptr)
	}
	return "", c.fail(ptr+"/type", "type must be a string or an array of strings, not %s", encodeCompact(typ))
}

// untyped infers the type from the keywords present, as llama.cpp does.
func (c *converter) untyped(s *object, name, ptr string) (string, error) {
	switch {
	case s.has("properties") || s.has("additionalProperties") || s.has("required"):
		return c.typed(s, "object", name, ptr)
	case s.has("items") || s.has("prefixItems"):
		return c.typed(s, "array", name, ptr)
	case s.has("pattern") || s.has("format") || s.has("minLength") || s.has("maxLength"):
		return c.typed(s, "string", name, ptr)
	}
	return c.b.Primitive("value"), nil
}

func (c *converter) typed(s *object, t, name, ptr string) (string, error) {
	switch t {
	case "object":
		return c.object(s, name, ptr)
	case "array":
		return c.array(s, name, ptr)
	case "string":
		return c.str(s, name, ptr)
	case "integer":
		return c.integer(s, name, ptr)
	case "number", "boolean", "null":
		return c.b.Primitive(t), nil
	}
	return "", c.fail(ptr+"/type", "unknown type %q", t)
}

func (c *converter) typeUnion(s *object, types []any, name, ptr string) (string, error) {
	var alts []string
	for i, t := range types {
		ts, ok := t.(string)
		if !ok {
			return "", c.fail(fmt.Sprintf("%s/type/%d", ptr, i), "type must be a string")
		}
		r, err := c.typed(s, ts, name+"-"+ts, ptr)
		if err != nil {
			return "", err
		}
		alts = append(alts, r)
	}
	if len(alts) == 0 {
		return "", c.fail(ptr+"/type", "an empty type list allows no value")
	}
	return c.b.Rule(name, strings.Join(alts, " | ")), nil
}

func (c *converter) union(s *object, key string, alts any, name, ptr string) (string, error) {
	list, ok := alts.([]any)
	if !ok || len(list) == 0 {
		return "", c.fail(ptr+"/"+key, "%s must be a non-empty array of schemas", key)
	}
	var rules []string
	for i, a := range list {
		if base := siblingConstraints(s, key); base != nil {
			a = mergeSchemas(base, a)
		}
		r, err := c.visit(a, fmt.Sprintf("%s-%d", name, i), fmt.Sprintf("%s/%s/%d", ptr, key, i))
		if err != nil {
			return "", err
		}
		rules = append(rules, r)
	}
	return c.b.Rule(name, strings.Join(rules, " | ")), nil
}

// siblingConstraints returns the keywords next to a oneOf/anyOf that each
// branch must also meet ({"type": "object", "oneOf": [...]}), or nil.
func siblingConstraints(s *object, key string) *object {
	base := newObject()
	for _, k := range s.keys {
		if k != key && !annotation(k) {
			base.set(k, s.vals[k])
		}
	}
	if len(base.keys) == 0 {
		return nil
	}
	return base
}

// annotation reports keywords that do not constrain values.
func annotation(k string) bool {
	switch k {
	case "title", "description", "default", "examples", "$schema", "$id", "$comment", "$defs", "definitions",
		"deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding":
		return true
	}
	return false
}

func (c *converter) enum(v any, name, ptr string) (string, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return "", c.fail(ptr+"/enum", "enum must be a non-empty array")
	}
	alts := make([]string, len(list))
	for i, e := range list {
		alts[i] = Quote(encodeCompact(e))
	}
	return c.b.Rule(name, "("+strings.Join(alts, " | ")+") space"), nil
}

func (c *converter) ref(ref any, name, ptr string) (string, error) {
	r, ok := ref.(string)
	if !ok {
		return "", c.fail(ptr+"/$ref", "$ref must be a string")
	}
	if n, ok := c.refs[r]; ok {
		return n, nil
	}
	target, err := c.resolve(r, ptr)
	if err != nil {
		return "", err
	}
	n := c.b.Rule("ref-"+strings.TrimPrefix(r, "#/"), "\x00"+r) // reserve the name: schemas may recurse
	c.refs[r] = n
	body, err := c.visit(target, n+"-value", strings.TrimPrefix(r, "#"))
	if err != nil {
		return "", err
	}
	c.b.bodies[n] = body
	return n, nil
}

// resolve follows a local $ref such as #/$defs/Item.
func (c *converter) resolve(ref, ptr string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, c.fail(ptr+"/$ref", "only local references (#/$defs/...) are supported, not %q", ref)
	}
	cur := c.doc
	if ref == "#" {
		return cur, nil
	}
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case *object:
			v, ok := x.get(part)
			if !ok {
				return nil, c.fail(ptr+"/$ref", "reference %q: no %q", ref, part)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, c.fail(ptr+"/$ref", "reference %q: no index %q", ref, part)
			}
			cur = x[i]
		default:
			return nil, c.fail(ptr+"/$ref", "reference %q: %q is not inside an object", ref, part)
		}
	}
	return cur, nil
}

// unenforced are keywords the grammar cannot express; validation checks them.
var unenforced = []string{"not", "if", "then", "else", "uniqueItems", "multipleOf", "minProperties",
	"maxProperties", "patternProperties", "propertyNames", "dependentRequired", "dependentSchemas",
	"dependencies", "contains", "minContains", "maxContains", "unevaluatedProperties", "unevaluatedItems"}

func (c *converter) noteUnenforced(s *object, ptr string) {
	for _, k := range unenforced {
		if s.has(k) {
			c.note(ptr+"/"+k, "%s is not enforced by the grammar; validate the arguments", k)
		}
	}
	if t, _ := s.get("type"); t == "number" {
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if s.has(k) {
				c.note(ptr+"/"+k, "%s of a number is not enforced by the grammar; validate the arguments", k)
			}
		}
	}
}

// mergeSchemas returns base with the keywords of s added (s wins).
func mergeSchemas(base *object, s any) any {
	so, ok := s.(*object)
	if !ok {
		return s
	}
	out := newObject()
	for _, k := range base.keys {
		out.set(k, base.vals[k])
	}
	for _, k := range so.keys {
		out.set(k, so.vals[k])
	}
	return out
}

func intOf(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := n.Float64()
	if err != nil || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
