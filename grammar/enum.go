package grammar

import (
	"encoding/json"
	"fmt"
)

// WithEnum returns the object schema with its property prop restricted to
// values ("enum"), the property's other keywords and every key order kept:
// how a caller narrows an argument to the values that exist now, such as a
// path to one of the workspace's files, so that the model cannot name a
// file that does not exist. It fails when the schema is not an object
// schema that declares prop, or when values is empty, which would admit
// no call at all.
func WithEnum(schema json.RawMessage, prop string, values []string) (json.RawMessage, error) {
	if len(values) == 0 {
		return nil, &Error{Op: "narrow schema", Pointer: "/properties/" + prop, Err: fmt.Errorf("%w: an empty enum admits no value", ErrSchema)}
	}
	enum := make([]any, len(values))
	for i, v := range values {
		enum[i] = v
	}
	return WithKeyword(schema, prop, "enum", enum)
}

// WithKeyword returns the object schema with keyword set to value in its
// property prop ("const", SubstringOf, ...), the rest kept as WithEnum
// keeps it. value is a string, a []any of strings, or what
// encoding/json writes.
func WithKeyword(schema json.RawMessage, prop, keyword string, value any) (json.RawMessage, error) {
	doc, err := decodeOrdered(schema)
	if err != nil {
		return nil, &Error{Op: "narrow schema", Err: fmt.Errorf("%w: %w", ErrSchema, err)}
	}
	top, _ := doc.(*object)
	props, _ := top.get("properties")
	po, _ := props.(*object)
	p, _ := po.get(prop)
	o, ok := p.(*object)
	if !ok {
		return nil, &Error{Op: "narrow schema", Pointer: "/properties/" + prop, Err: fmt.Errorf("%w: the schema declares no property %q", ErrSchema, prop)}
	}
	o.set(keyword, value)
	return json.RawMessage(encodeCompact(doc)), nil
}
