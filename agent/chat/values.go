package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ardanlabs/jinja"
)

// This file turns JSON text into template values without losing the key
// order the caller wrote: objects are read token by token into ordered
// jinja dicts, never through map[string]any, which would sort the keys.

// decodeJSON reads one JSON value from data into a template value. Object
// keys keep their order; integers stay integers.
func decodeJSON(data []byte) (jinja.Value, error) {
	return decodeNumbers(data, nil)
}

// decodeNumbers is decodeJSON that also records in nums how each
// non-integer number was written.
func decodeNumbers(data []byte, nums numberTexts) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, nums)
	if err != nil {
		return jinja.Undefined(), err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jinja.Undefined(), errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// decodeValue reads the next value of dec.
func decodeValue(dec *json.Decoder, nums numberTexts) (jinja.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return jinja.Undefined(), err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return decodeObject(dec, nums)
		case '[':
			return decodeArray(dec, nums)
		}
		return jinja.Undefined(), fmt.Errorf("unexpected %q", rune(t))
	case json.Number:
		v := numberValue(t)
		if v.IsFloat() {
			nums.add(v.AsFloat(), string(t))
		}
		return v, nil
	case string:
		return jinja.NewString(t), nil
	case bool:
		return jinja.NewBool(t), nil
	case nil:
		return jinja.None(), nil
	}
	return jinja.Undefined(), fmt.Errorf("unexpected JSON token %v", tok)
}

// decodeObject reads the members of an object whose '{' was read.
func decodeObject(dec *json.Decoder, nums numberTexts) (jinja.Value, error) {
	obj := jinja.NewDict()
	d := obj.AsDict()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jinja.Undefined(), err
		}
		key, ok := tok.(string)
		if !ok {
			return jinja.Undefined(), fmt.Errorf("object key %v is not a string", tok)
		}
		v, err := decodeValue(dec, nums)
		if err != nil {
			return jinja.Undefined(), err
		}
		d.Set(key, v)
	}
	if _, err := dec.Token(); err != nil { // '}'
		return jinja.Undefined(), err
	}
	return obj, nil
}

// decodeArray reads the items of an array whose '[' was read.
func decodeArray(dec *json.Decoder, nums numberTexts) (jinja.Value, error) {
	items := []jinja.Value{}
	for dec.More() {
		v, err := decodeValue(dec, nums)
		if err != nil {
			return jinja.Undefined(), err
		}
		items = append(items, v)
	}
	if _, err := dec.Token(); err != nil { // ']'
		return jinja.Undefined(), err
	}
	return jinja.NewList(items), nil
}

// numberValue keeps integers as integers, as nlohmann::json and
// jinja.FromGoValue do: a literal without '.', 'e' or 'E' that fits in an
// int64 is an integer, anything else a float.
func numberValue(n json.Number) jinja.Value {
	return jinja.FromGoValue(n)
}

// numberTexts maps the value of each non-integer number of the call
// arguments in a render to the text the model wrote: a float cannot tell
// 1.0 from 1, and tojson writes floats as llama.cpp does (%g: "1",
// "100000"), so without it a history would no longer be the text that was
// generated, and the cached prefix would break. A value written two ways
// in one render is ambiguous and printed the default way. A nil table
// records nothing.
type numberTexts map[float64]string

func (n numberTexts) add(f float64, text string) {
	if n == nil {
		return
	}
	if old, ok := n[f]; ok && old != text {
		text = ""
	}
	n[f] = text
}

// text returns how f was written, if that is known.
func (n numberTexts) text(f float64) (string, bool) {
	t, ok := n[f]
	return t, ok && t != ""
}

// mustDecodeJSON decodes JSON text written in this package.
func mustDecodeJSON(text string) jinja.Value {
	v, err := decodeJSON([]byte(text))
	if err != nil {
		panic("chat: bad built-in JSON: " + err.Error())
	}
	return v
}

// cloneValue deep-copies lists and dicts, so that a template that mutates
// its input (list.append, dict.update) cannot change a shared value.
func cloneValue(v jinja.Value) jinja.Value {
	switch {
	case v.IsList():
		src := v.AsList().Items
		items := make([]jinja.Value, len(src))
		for i, item := range src {
			items[i] = cloneValue(item)
		}
		return jinja.NewList(items)
	case v.IsDict():
		out := jinja.NewDict()
		src := v.AsDict()
		for _, k := range src.Keys {
			out.AsDict().Set(k, cloneValue(src.Data[k]))
		}
		return out
	}
	return v
}

// dictOf builds an ordered dict from key/value pairs.
func dictOf(pairs ...any) jinja.Value {
	d := jinja.NewDict()
	for i := 0; i+1 < len(pairs); i += 2 {
		d.AsDict().Set(pairs[i].(string), pairs[i+1].(jinja.Value))
	}
	return d
}

// valueOptions says how messages become template values.
type valueOptions struct {
	// objectArgs gives call arguments as objects (llama.cpp's
	// func_args_not_string workaround for templates that read them so).
	objectArgs bool
	// typed gives content parts as parts; otherwise their texts are
	// joined by newlines, as llama-server does for templates that only
	// take strings.
	typed bool
	// nums records how the arguments' numbers were written.
	nums numberTexts
}

// messageValue turns a message into the dict llama-server gives a
// template (common_chat_msg::to_json_oaicompat): role and content always,
// then reasoning_content, name, tool_call_id and tool_calls when present.
// Content is the string, the parts (see valueOptions.typed), or none when
// the caller sent null; llama-server sends "" there, which makes DeepSeek
// R1-Distill's template, which writes calls only when content is none,
// drop them. A tool call is {type, function: {name, arguments}, id}, in
// that order; arguments is the JSON text, or the parsed object.
func messageValue(m Message, o valueOptions) (jinja.Value, error) {
	role := m.Role
	msg := dictOf("role", jinja.NewString(role), "content", contentValue(m, o.typed))
	d := msg.AsDict()
	if m.ReasoningContent != "" {
		d.Set("reasoning_content", jinja.NewString(m.ReasoningContent))
	}
	if m.Name != "" {
		d.Set("name", jinja.NewString(m.Name))
	}
	if m.ToolCallID != "" {
		d.Set("tool_call_id", jinja.NewString(m.ToolCallID))
	}
	if len(m.ToolCalls) == 0 {
		return msg, nil
	}
	calls := make([]jinja.Value, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		call, err := toolCallValue(c, o)
		if err != nil {
			return jinja.Undefined(), fmt.Errorf("message %s, call %d: %w", role, i, err)
		}
		calls[i] = call
	}
	d.Set("tool_calls", jinja.NewList(calls))
	return msg, nil
}

// contentValue is a message's content: none, a list of text parts, or a
// string.
func contentValue(m Message, typed bool) jinja.Value {
	switch {
	case m.NullContent:
		return jinja.None()
	case len(m.Parts) > 0 && typed:
		parts := make([]jinja.Value, len(m.Parts))
		for i, p := range m.Parts {
			parts[i] = dictOf("type", jinja.NewString(p.Type), "text", jinja.NewString(p.Text))
		}
		return jinja.NewList(parts)
	}
	return jinja.NewString(m.Text())
}

// toolCallValue is one entry of a message's tool_calls.
func toolCallValue(c ToolCall, o valueOptions) (jinja.Value, error) {
	args := jinja.NewString(c.Function.Arguments)
	if o.objectArgs {
		v, err := decodeNumbers([]byte(c.Function.Arguments), o.nums)
		if err != nil {
			return jinja.Undefined(), fmt.Errorf("arguments are not JSON: %w", err)
		}
		args = v
	}
	fn := dictOf("name", jinja.NewString(c.Function.Name), "arguments", args)
	call := dictOf("type", jinja.NewString("function"), "function", fn)
	if c.ID != "" {
		call.AsDict().Set("id", jinja.NewString(c.ID))
	}
	return call, nil
}

// toolValue is a tool as llama-server gives it to a template
// (common_chat_tools_to_json_oaicompat): {"type": "function", "function":
// {"name", "description", "parameters"}} with description "" and
// parameters {} when absent. The parameters keep the caller's key order;
// other fields of the caller's JSON are dropped, as llama-server drops
// them.
func toolValue(t Tool) (jinja.Value, error) {
	name, desc, params := jinja.NewString(t.Name), jinja.NewString(""), jinja.NewDict()
	if len(t.Raw) > 0 {
		raw, err := decodeJSON(t.Raw)
		if err != nil {
			return jinja.Undefined(), err
		}
		if typ, _ := lookup(raw, "type"); !typ.IsString() || typ.AsString() != "function" {
			return jinja.Undefined(), errors.New(`"type" is not "function"`)
		}
		fn, ok := lookup(raw, "function")
		if !ok || !fn.IsDict() {
			return jinja.Undefined(), errors.New(`no "function" object`)
		}
		name, _ = lookup(fn, "name")
		if v, ok := lookup(fn, "description"); ok {
			if !v.IsString() {
				return jinja.Undefined(), errors.New(`"description" is not a string`)
			}
			desc = v
		}
		if v, ok := lookup(fn, "parameters"); ok {
			params = v
		}
	} else if len(t.Parameters) > 0 {
		v, err := decodeJSON(t.Parameters)
		if err != nil {
			return jinja.Undefined(), err
		}
		params = v
	}
	if !name.IsString() || name.AsString() == "" {
		return jinja.Undefined(), errors.New("tool without a name")
	}
	fn := dictOf("name", name, "description", desc, "parameters", params)
	return dictOf("type", jinja.NewString("function"), "function", fn), nil
}

// lookup returns d[key] when d is a dict that has it.
func lookup(d jinja.Value, key string) (jinja.Value, bool) {
	if !d.IsDict() {
		return jinja.Undefined(), false
	}
	return d.AsDict().Get(key)
}

// toJSON writes v as llama.cpp's Jinja engine writes it for the tojson
// filter (jinja::value_to_json): keys in dict order, non-ASCII text as is,
// only '"', '\\' and control characters escaped, ", " and ": " as
// separators, or one item a line with indent. A float whose text nums
// knows is written as that text.
func toJSON(v jinja.Value, nums numberTexts, indent int, itemSep, keySep string) string {
	var b strings.Builder
	w := jsonWriter{b: &b, nums: nums, indent: indent, itemSep: itemSep, keySep: keySep}
	w.write(v, 0)
	return b.String()
}

// jsonWriter is the state of one toJSON.
type jsonWriter struct {
	b               *strings.Builder
	nums            numberTexts
	indent          int
	itemSep, keySep string
}

func (w *jsonWriter) write(v jinja.Value, level int) {
	b, indent, itemSep, keySep := w.b, w.indent, w.itemSep, w.keySep
	switch {
	case v.IsList():
		items := v.AsList().Items
		b.WriteByte('[')
		for i, item := range items {
			jsonItemStart(b, i, level, indent, itemSep)
			w.write(item, level+1)
		}
		jsonClose(b, len(items), level, indent)
		b.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		b.WriteByte('{')
		for i, k := range d.Keys {
			jsonItemStart(b, i, level, indent, itemSep)
			writeJSONString(b, k)
			b.WriteString(keySep)
			w.write(d.Data[k], level+1)
		}
		jsonClose(b, d.Len(), level, indent)
		b.WriteByte('}')
	default:
		writeJSONScalar(b, v, w.nums)
	}
}

// jsonItemStart writes what comes before item i of a list or dict.
func jsonItemStart(b *strings.Builder, i, level, indent int, itemSep string) {
	if i > 0 {
		b.WriteString(itemSep)
	}
	if indent >= 0 {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", (level+1)*indent))
	}
}

// jsonClose writes what comes before the closing bracket of n items.
func jsonClose(b *strings.Builder, n, level, indent int) {
	if n > 0 && indent >= 0 {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", level*indent))
	}
}

func writeJSONScalar(b *strings.Builder, v jinja.Value, nums numberTexts) {
	switch {
	case v.IsBool():
		if v.AsBool() {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case v.IsInt():
		fmt.Fprintf(b, "%d", v.AsInt())
	case v.IsFloat():
		if text, ok := nums.text(v.AsFloat()); ok {
			b.WriteString(text)
		} else {
			b.WriteString(formatFloat(v.AsFloat()))
		}
	case v.IsString():
		writeJSONString(b, v.AsString())
	default: // none, undefined, callable
		b.WriteString("null")
	}
}

// writeJSONString escapes byte by byte as llama.cpp does: UTF-8 passes
// through untouched.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// formatFloat prints a float as C++'s ostream does by default (%g, six
// significant digits), which is what llama.cpp's tojson writes.
func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// QuoteJSON writes s as a JSON string, without escaping HTML characters: a
// template and a parser see the text as the model would write it.
func QuoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
