package grammar

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

// repetition writes item{min,max} (max < 0: unbounded) with sep between
// items, as llama.cpp's build_repetition does.
func repetition(item string, min, max int, sep string) string {
	if max == 0 {
		return `""`
	}
	if min == 0 && max == 1 {
		return item + "?"
	}
	if sep == "" {
		switch {
		case min == 1 && max < 0:
			return item + "+"
		case min == 0 && max < 0:
			return item + "*"
		case max < 0:
			return fmt.Sprintf("%s{%d,}", item, min)
		case min == max:
			return fmt.Sprintf("%s{%d}", item, min)
		}
		return fmt.Sprintf("%s{%d,%d}", item, min, max)
	}
	restMin, restMax := max0(min-1), max
	if max > 0 {
		restMax = max - 1
	}
	r := item + " " + repetition("("+sep+" "+item+")", restMin, restMax, "")
	if min == 0 {
		r = "(" + r + ")?"
	}
	return r
}

func max0(x int) int { return max(x, 0) }

// bounds reads a minimum and maximum count and relaxes those above the
// grammar engine's limit, with a note.
func (c *converter) bounds(s *object, minKey, maxKey, ptr string) (int, int, error) {
	lo, hi := 0, -1
	if v, ok := s.get(minKey); ok {
		n, ok := intOf(v)
		if !ok || n < 0 {
			return 0, 0, c.fail(ptr+"/"+minKey, "%s must be a non-negative integer", minKey)
		}
		lo = int(min(n, math.MaxInt32))
	}
	if v, ok := s.get(maxKey); ok {
		n, ok := intOf(v)
		if !ok || n < 0 {
			return 0, 0, c.fail(ptr+"/"+maxKey, "%s must be a non-negative integer", maxKey)
		}
		hi = int(min(n, math.MaxInt32))
		if hi < lo {
			return 0, 0, c.fail(ptr, "%s %d is below %s %d: no value fits", maxKey, hi, minKey, lo)
		}
	}
	limit := c.b.opts.maxRep()
	if hi > limit {
		c.note(ptr+"/"+maxKey, "%s %d is above the grammar limit of %d: the grammar allows any length, validate the arguments", maxKey, hi, limit)
		hi = -1
	}
	if lo > limit {
		c.note(ptr+"/"+minKey, "%s %d is above the grammar limit of %d: the grammar requires %d, validate the arguments", minKey, lo, limit, limit)
		lo = limit
	}
	return lo, hi, nil
}

func (c *converter) array(s *object, name, ptr string) (string, error) {
	var parts []string
	prefix, _ := s.get("prefixItems")
	items, hasItems := s.get("items")
	if tuple, ok := items.([]any); ok { // draft-07 tuple form
		prefix, items, hasItems = tuple, s.vals["additionalItems"], s.has("additionalItems")
	}
	if tuple, ok := prefix.([]any); ok {
		for i, t := range tuple {
			r, err := c.visit(t, fmt.Sprintf("%s-tuple-%d", name, i), fmt.Sprintf("%s/prefixItems/%d", ptr, i))
			if err != nil {
				return "", err
			}
			parts = append(parts, r)
		}
		if b, ok := items.(bool); !hasItems || (ok && !b) {
			body := `"[" space ` + strings.Join(parts, ` "," space `) + ` "]" space`
			if len(parts) == 0 {
				body = `"[" space "]" space`
			}
			return c.b.Rule(name, body), nil
		}
		c.note(ptr+"/items", "items after prefixItems are not enforced by the grammar")
		return c.b.Primitive("array"), nil
	}
	var item string
	if hasItems {
		r, err := c.visit(items, name+"-item", ptr+"/items")
		if err != nil {
			return "", err
		}
		item = r
	} else {
		item = c.b.Primitive("value")
	}
	lo, hi, err := c.bounds(s, "minItems", "maxItems", ptr)
	if err != nil {
		return "", err
	}
	return c.b.Rule(name, `"[" space `+repetition(item, lo, hi, `"," space`)+` "]" space`), nil
}

var uuidFormat = regexp.MustCompile(`^uuid[1-5]?$`)

func (c *converter) str(s *object, name, ptr string) (string, error) {
	if v, ok := s.get(SubstringOf); ok {
		return c.substringOf(v, name, ptr)
	}
	if p, ok := s.get("pattern"); ok {
		ps, ok := p.(string)
		if !ok {
			return "", c.fail(ptr+"/pattern", "pattern must be a string")
		}
		if s.has("minLength") || s.has("maxLength") {
			c.note(ptr, "minLength and maxLength next to a pattern are not enforced by the grammar")
		}
		return c.pattern(ps, name, ptr+"/pattern")
	}
	if f, ok := s.get("format"); ok {
		fs, _ := f.(string)
		switch {
		case uuidFormat.MatchString(fs):
			return c.b.Primitive("uuid"), nil
		case fs == "date" || fs == "time" || fs == "date-time":
			return c.b.Primitive(fs + "-string"), nil
		}
		c.note(ptr+"/format", "format %q is not enforced by the grammar", fs)
	}
	lo, hi, err := c.bounds(s, "minLength", "maxLength", ptr)
	if err != nil {
		return "", err
	}
	if lo == 0 && hi < 0 {
		return c.b.Primitive("string"), nil
	}
	char := c.b.Primitive("char")
	return c.b.Rule(name, `"\"" `+repetition(char, lo, hi, "")+` "\"" space`), nil
}

func (c *converter) integer(s *object, name, ptr string) (string, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	read := func(k string, adj int64, dst *int64) error {
		v, ok := s.get(k)
		if !ok {
			return nil
		}
		n, ok := intOf(v)
		if !ok {
			return c.fail(ptr+"/"+k, "%s of an integer must be an integer", k)
		}
		if (adj > 0 && n == math.MaxInt64) || (adj < 0 && n == math.MinInt64) {
			return c.fail(ptr+"/"+k, "%s is out of range", k)
		}
		*dst = n + adj
		return nil
	}
	if err := read("minimum", 0, &lo); err != nil {
		return "", err
	}
	if err := read("exclusiveMinimum", 1, &lo); err != nil {
		return "", err
	}
	if err := read("maximum", 0, &hi); err != nil {
		return "", err
	}
	if err := read("exclusiveMaximum", -1, &hi); err != nil {
		return "", err
	}
	if lo == math.MinInt64 && hi == math.MaxInt64 {
		return c.b.Primitive("integer"), nil
	}
	if lo > hi {
		return "", c.fail(ptr, "minimum %d is above maximum %d: no integer fits", lo, hi)
	}
	var b strings.Builder
	b.WriteString("(")
	minMaxInt(&b, lo, hi, 16, true)
	b.WriteString(") space")
	return c.b.Rule(name, b.String()), nil
}

// mergeAllOf merges the schemas of allOf (and the keywords beside it) into
// one: properties and required are united, enums intersected, and a type
// conflict is an error.
func (c *converter) mergeAllOf(s *object, all any, ptr string) (*object, error) {
	list, ok := all.([]any)
	if !ok || len(list) == 0 {
		return nil, c.fail(ptr+"/allOf", "allOf must be a non-empty array of schemas")
	}
	out := newObject()
	props := newObject()
	var required []any
	var parts []any
	if base := siblingConstraints(s, "allOf"); base != nil {
		parts = append(parts, base)
	}
	for i, part := range append(parts, list...) {
		pp := fmt.Sprintf("%s/allOf/%d", ptr, i-len(parts))
		if r, ok := part.(*object); ok && r.has("$ref") {
			ref, _ := r.vals["$ref"].(string)
			target, err := c.resolve(ref, pp)
			if err != nil {
				return nil, err
			}
			part = target
		}
		po, ok := part.(*object)
		if !ok {
			continue
		}
		for _, k := range po.keys {
			v := po.vals[k]
			switch k {
			case "properties":
				if pv, ok := v.(*object); ok {
					for _, pk := range pv.keys {
						props.set(pk, pv.vals[pk])
					}
				}
			case "required":
				list, _ := v.([]any)
				required = append(required, list...)
			case "enum":
				if old, ok := out.get("enum"); ok {
					a, _ := old.([]any)
					b, _ := v.([]any)
					v = intersect(a, b)
				}
				out.set(k, v)
			case "type":
				if old, ok := out.get("type"); ok && encodeCompact(old) != encodeCompact(v) {
					return nil, c.fail(pp+"/type", "allOf combines type %s with %s: no value fits", encodeCompact(old), encodeCompact(v))
				}
				out.set(k, v)
			default:
				out.set(k, v)
			}
		}
	}
	if len(props.keys) > 0 {
		out.set("properties", props)
	}
	if len(required) > 0 {
		out.set("required", required)
	}
	return out, nil
}

func intersect(a, b []any) []any {
	var out []any
	for _, x := range a {
		for _, y := range b {
			if encodeCompact(x) == encodeCompact(y) {
				out = append(out, x)
				break
			}
		}
	}
	return out
}
