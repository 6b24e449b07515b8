package grammar

import (
	"fmt"
	"slices"
	"strings"
)

// property is one named property of an object schema.
type property struct {
	name     string
	kv       string // rule for `"name": value`
	required bool
}

// object builds the rule of an object schema. Required properties come in
// their declared order; optional ones may come anywhere between them, in any
// order, each at most once (within Options.MaxObjectStates; beyond that
// they keep their declared order). None is ever dropped, unlike the grammar
// of llama.cpp #30321, where an optional property declared before a
// required one could not be written at all.
func (c *converter) object(s *object, name, ptr string) (string, error) {
	props, err := c.properties(s, name, ptr)
	if err != nil {
		return "", err
	}
	add, err := c.additional(s, props, name, ptr)
	if err != nil {
		return "", err
	}
	var opt []property
	var req []property
	for _, p := range props {
		if p.required {
			req = append(req, p)
		} else {
			opt = append(opt, p)
		}
	}
	var body string
	switch {
	case len(opt) == 0:
		body = c.inOrder(name, req, add)
	case len(opt) < 20 && (len(req)+1)<<len(opt) <= c.b.opts.maxObjectStates():
		body = c.anyOrder(name, req, opt, add)
	default:
		c.note(ptr+"/properties", "%d optional properties beside %d required ones: accepted in their declared order only", len(opt), len(req))
		body = c.declaredOrder(name, props, add)
	}
	return c.b.Rule(name, `"{" space `+body+` "}" space`), nil
}

func (c *converter) properties(s *object, name, ptr string) ([]property, error) {
	required := stringsOf(must(s.get("required")))
	var props []property
	if v, ok := s.get("properties"); ok {
		po, ok := v.(*object)
		if !ok {
			return nil, c.fail(ptr+"/properties", "properties must be an object")
		}
		for _, k := range po.keys {
			pp := ptr + "/properties/" + escapePointer(k)
			r, err := c.visit(po.vals[k], name+"-"+k, pp)
			if err != nil {
				return nil, err
			}
			kv := c.b.Rule(name+"-"+k+"-kv", Quote(jsonString(k))+` space ":" space `+r)
			props = append(props, property{name: k, kv: kv, required: slices.Contains(required, k)})
		}
	}
	for _, r := range required {
		if !slices.ContainsFunc(props, func(p property) bool { return p.name == r }) {
			// A required property without a schema: any value.
			kv := c.b.Rule(name+"-"+r+"-kv", Quote(jsonString(r))+` space ":" space `+c.b.Primitive("value"))
			props = append(props, property{name: r, kv: kv, required: true})
		}
	}
	return props, nil
}

func must(v any, _ bool) any { return v }

// additional returns the rule of one extra `"key": value` pair, or "" when
// additionalProperties is false (or unset on an object with properties,
// which is how tool schemas mean it: an extra key is a mistake).
func (c *converter) additional(s *object, props []property, name, ptr string) (string, error) {
	v, set := s.get("additionalProperties")
	if b, ok := v.(bool); ok && !b {
		return "", nil
	}
	if !set && len(props) > 0 {
		// An unknown argument is an error for a tool call (the tool
		// would reject it), so the grammar allows only the declared
		// properties.
		return "", nil
	}
	value := c.b.Primitive("value")
	if so, ok := v.(*object); ok {
		r, err := c.visit(so, name+"-additional-value", ptr+"/additionalProperties")
		if err != nil {
			return "", err
		}
		value = r
	}
	key := c.b.Primitive("string")
	if len(props) > 0 {
		names := make([]string, len(props))
		for i, p := range props {
			names[i] = p.name
		}
		key = c.b.Rule(name+"-additional-k", c.notStrings(names))
	}
	return c.b.Rule(name+"-additional-kv", key+` ":" space `+value), nil
}

// inOrder writes required properties in their declared order.
func (c *converter) inOrder(name string, req []property, add string) string {
	var parts []string
	for i, p := range req {
		if i > 0 {
			parts = append(parts, `"," space`)
		}
		parts = append(parts, p.kv)
	}
	if rest := c.rest(name, add, len(req) == 0); rest != "" {
		parts = append(parts, rest)
	}
	return strings.Join(parts, " ")
}

// anyOrder builds the state machine over (next required index, set of
// optional properties used). Each state is a rule; the first state writes
// no comma before its first pair.
func (c *converter) anyOrder(name string, req, opt []property, add string) string {
	type state struct {
		i     int
		used  uint
		first bool
	}
	names := map[state]string{}
	var build func(st state) string
	build = func(st state) string {
		if n, ok := names[st]; ok {
			return n
		}
		if st.i == len(req) && st.used == 1<<len(opt)-1 {
			return c.rest(name, add, st.first) // nothing optional left
		}
		n := c.b.Rule(fmt.Sprintf("%s-s%d-%x", name, st.i, st.used)+map[bool]string{true: "-first"}[st.first], "\x00pending")
		names[st] = n
		sep := `"," space `
		if st.first {
			sep = ""
		}
		var alts []string
		for j, p := range opt {
			if st.used&(1<<j) == 0 {
				alts = append(alts, join(sep+p.kv, build(state{st.i, st.used | 1<<j, false})))
			}
		}
		if st.i < len(req) {
			alts = append(alts, join(sep+req[st.i].kv, build(state{st.i + 1, st.used, false})))
		} else {
			alts = append(alts, or(c.rest(name, add, st.first), `""`))
		}
		c.b.bodies[n] = strings.Join(alts, " | ")
		return n
	}
	return build(state{0, 0, true})
}

// declaredOrder builds the object as its properties in declared order, each
// optional one skippable.
func (c *converter) declaredOrder(name string, props []property, add string) string {
	var build func(j int, first bool) string
	memo := map[[2]int]string{}
	build = func(j int, first bool) string {
		key := [2]int{j, map[bool]int{true: 1}[first]}
		if n, ok := memo[key]; ok {
			return n
		}
		if j == len(props) {
			return c.rest(name, add, first)
		}
		n := c.b.Rule(fmt.Sprintf("%s-p%d", name, j)+map[bool]string{true: "-first"}[first], "\x00pending")
		memo[key] = n
		sep := `"," space `
		if first {
			sep = ""
		}
		alts := []string{join(sep+props[j].kv, build(j+1, false))}
		if !props[j].required {
			alts = append(alts, or(build(j+1, first), `""`))
		}
		c.b.bodies[n] = strings.Join(alts, " | ")
		return n
	}
	return build(0, true)
}

// join writes two sequence parts, either of which may be empty.
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// rest is what may follow the named properties: nothing (""), or extra
// pairs.
func (c *converter) rest(name, add string, first bool) string {
	if add == "" {
		return ""
	}
	more := c.b.Rule(name+"-additional-rest", `( "," space `+add+` )*`)
	if first {
		return `( ` + add + " " + more + ` )?`
	}
	return more
}

// notStrings returns a rule body matching a JSON string that is none of
// names, with a trie as llama.cpp's _not_strings does.
func (c *converter) notStrings(names []string) string {
	type node struct {
		children map[rune]*node
		end      bool
	}
	root := &node{children: map[rune]*node{}}
	for _, s := range names {
		n := root
		for _, r := range s {
			if n.children[r] == nil {
				n.children[r] = &node{children: map[rune]*node{}}
			}
			n = n.children[r]
		}
		n.end = true
	}
	char := c.b.Primitive("char")
	var b strings.Builder
	var visit func(n *node)
	visit = func(n *node) {
		keys := make([]rune, 0, len(n.children))
		for r := range n.children {
			keys = append(keys, r)
		}
		slices.Sort(keys)
		var rejects strings.Builder
		for i, r := range keys {
			child := n.children[r]
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString("[" + ClassChar(r) + "]")
			rejects.WriteString(ClassChar(r))
			if len(child.children) > 0 {
				b.WriteString(" (")
				visit(child)
				b.WriteString(")")
				if !child.end { // a proper prefix of a name is itself allowed
					b.WriteString("?")
				}
			} else if child.end {
				b.WriteString(" " + char + "+")
			}
		}
		if len(keys) > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(`[^"\\\x7F\x00-\x1F` + rejects.String() + `] ` + char + "*")
	}
	b.WriteString(`"\"" ( `)
	visit(root)
	b.WriteString(` )`)
	if !root.end {
		b.WriteString("?")
	}
	b.WriteString(` "\"" space`)
	return b.String()
}
