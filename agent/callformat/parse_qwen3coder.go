package callformat

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
)

// The Qwen3-Coder format, whose <function=...> blocks are also OpenHands'
// fallback for models without native tool calls (there without the
// <tool_call> wrapper, which is optional here):
//
//	<tool_call>
//	<function=write_file>
//	<parameter=path>
//	src/Main.java
//	</parameter>
//	<parameter=lines>
//	12
//	</parameter>
//	</function>
//	</tool_call>
//
// A value runs from the newline after <parameter=KEY> to the newline
// before the first </parameter>; exactly one newline is taken off each
// end, as Qwen's own parser (qwen3coder_tool_parser.py) and Ollama do, so
// that a file's indentation and final newline survive. llama.cpp's
// chat-parser trims all white space (trim_raw_argval) instead.
//
// A value is a JSON string unless the tool's schema gives the parameter a
// type other than string; then it is parsed as JSON, and kept as a string
// when it does not parse. This is what Qwen's parser, vLLM and llama.cpp's
// PEG parser do (common/chat-syntax/qwen3-coder-xml.cpp: a parameter that
// resolves to string is raw text, any other a JSON value). llama.cpp's
// older chat-parser-xml-toolcall.cpp, used for this format, tries JSON for
// every value whatever the schema, so a string "123" came out as a number
// there. A parameter the schema does not declare is a string.

const (
	fnOpen     = "<function="
	fnClose    = "</function>"
	paramOpen  = "<parameter="
	paramClose = "</parameter>"
)

func scanQwen3Coder(f *format, s *scanState) {
	block := func(s *scanState, pos int) (int, bool) { return f.xmlBlock(s, pos, toolCallOpen, toolCallClose) }
	scanTagged(s, f.opts.ReasoningOpen, map[string]callReader{toolCallOpen: block, fnOpen: f.xmlBare})
}

// xmlBare reads a <function=NAME> call without <tool_call> around it, as
// OpenHands' fallback prompt asks for.
func (f *format) xmlBare(s *scanState, pos int) (int, bool) {
	c := s.call()
	c.idOK = true
	i, ok := f.xmlFunction(s, c, pos)
	if !ok || c.problem == nil {
		return i, ok
	}
	if j := s.indexAt(pos, fnClose); j >= 0 {
		return pos + j + len(fnClose), true
	}
	return len(s.text), false
}

// xmlBlock reads the functions of one <tool_call> block (open) and its
// close tag. A block may hold several functions.
func (f *format) xmlBlock(s *scanState, pos int, open, close string) (int, bool) {
	t := s.text
	i := skipSpace(t, pos)
	for n := 0; ; n++ {
		switch {
		case strings.HasPrefix(t[i:], fnOpen):
			c := s.call()
			c.idOK = true
			var ok bool
			if i, ok = f.xmlFunction(s, c, i+len(fnOpen)); !ok {
				return i, false
			}
			if c.problem != nil {
				return s.skipMalformed(pos, close)
			}
			i = skipSpace(t, i)
			continue
		case n > 0 && strings.HasPrefix(t[i:], close):
			return i + len(close), true
		case n > 0 && s.final && isPrefix(t[i:], close):
			return len(t), true // </function> and the end: llama.cpp accepts it too
		case !s.final && (isPrefix(t[i:], fnOpen) || n > 0 && isPrefix(t[i:], close)):
			return len(t), false
		case n == 0 && i == len(t):
			return s.cutOff(s.call(), open)
		}
		if n == 0 {
			s.call().fail(Malformed, "%s without <function=NAME>", open)
			return s.skipMalformed(pos, close)
		}
		s.problem(Malformed, "text after </function> inside %s", open)
		return s.skipMalformed(pos, close)
	}
}

// skipMalformed goes on after the first close tag from pos, or stops.
func (s *scanState) skipMalformed(pos int, close string) (int, bool) {
	if j := s.indexAt(pos, close); j >= 0 {
		return pos + j + len(close), true
	}
	return len(s.text), false
}

// xmlFunction reads NAME>, the parameters and </function>, from i (after
// "<function="). It returns false to stop the scan; a broken function
// sets c.problem.
func (f *format) xmlFunction(s *scanState, c *callItem, i int) (int, bool) {
	t := s.text
	name, i, ok := s.xmlName(c, i, fnOpen)
	if !ok || c.problem != nil {
		return i, ok
	}
	c.name, c.nameOK = name, true
	r := s.memo.xmlCall(i, len(t))
	if r.done {
		c.head, c.args, c.done = "", r.args.String(), true
		return r.end, true
	}
	i, args := r.i, &r.args
	if args.Len() == 0 {
		args.WriteString("{")
	}
	c.args = args.String()
	for n := r.n; ; n++ {
		r.i, r.n = i, n
		i = skipSpace(t, i)
		switch {
		case strings.HasPrefix(t[i:], paramOpen):
			if i, ok = f.xmlParam(s, c, args, i+len(paramOpen), n == 0); !ok || c.problem != nil {
				return i, ok
			}
		case strings.HasPrefix(t[i:], fnClose):
			args.WriteString("}")
			c.head, c.args, c.done = "", args.String(), true
			r.done, r.end = true, i+len(fnClose)
			return i + len(fnClose), true
		case !s.final && (isPrefix(t[i:], paramOpen) || isPrefix(t[i:], fnClose)):
			return len(t), false
		case i == len(t):
			return s.cutOff(c, fnOpen+c.name+">")
		default:
			c.fail(Malformed, "unexpected text in <function=%s>", c.name)
			return i, true
		}
	}
}

// xmlName reads NAME> from i, as in <function=NAME> and <parameter=NAME>.
func (s *scanState) xmlName(c *callItem, i int, open string) (string, int, bool) {
	t := s.text
	j := strings.IndexAny(t[i:], ">\n<")
	if j < 0 {
		i, ok := s.cutOff(c, open)
		return "", i, ok
	}
	if t[i+j] != '>' || j == 0 {
		c.fail(Malformed, "%s without a name and '>'", open)
		return "", i, true
	}
	return t[i : i+j], i + j + 1, true
}

// xmlParam reads KEY>, the value and </parameter>, from i (after
// "<parameter="), and writes "KEY":VALUE to args.
func (f *format) xmlParam(s *scanState, c *callItem, args *strings.Builder, i int, first bool) (int, bool) {
	t := s.text
	key, i, ok := s.xmlName(c, i, paramOpen)
	if !ok || c.problem != nil {
		s.setArgs(c, args.String(), "")
		return i, ok
	}
	head := chat.QuoteJSON(key) + ":"
	if !first {
		head = "," + head
	}
	if strings.HasPrefix(t[i:], "\n") {
		i++
	}
	end := s.indexAt(i, paramClose)
	str := f.stringParam(c.name, key)
	if end < 0 {
		tail := head
		if !s.final && str {
			raw := t[i:holdEnd(t, i, "\n"+paramClose, paramClose)]
			tail = s.memo.quotedPrefix(i, head, raw[:runeSafe(raw)])
		}
		s.setArgs(c, args.String(), tail)
		return s.cutOff(c, paramOpen+key+">")
	}
	raw := strings.TrimSuffix(t[i:i+end], "\n")
	args.WriteString(head)
	args.WriteString(paramValue(raw, str))
	s.setArgs(c, args.String(), "")
	return i + end + len(paramClose), true
}

// paramValue is the JSON of a parameter's text.
func paramValue(raw string, str bool) string {
	if !str {
		if v, err := compactJSON(raw); err == nil {
			return v
		}
	}
	return chat.QuoteJSON(raw)
}

// runeSafe returns the length of s without a UTF-8 sequence cut at its end.
func runeSafe(s string) int {
	for k := 1; k <= utf8.UTFMax && k <= len(s); k++ {
		c := s[len(s)-k]
		if c < utf8.RuneSelf {
			return len(s)
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRuneInString(s[len(s)-k:]) {
				return len(s) - k
			}
			return len(s)
		}
	}
	return len(s)
}

// stringParam reports whether the value of parameter key of tool is text:
// the schema declares it a string, or does not declare it.
func (f *format) stringParam(tool, key string) bool {
	t := f.tool(tool)
	if t == nil {
		return true
	}
	props, _, _ := chat.SchemaProperties(t.Parameters)
	p, ok := props[key]
	return !ok || schemaIsString(p)
}

// schemaIsString reports whether a schema admits only strings: type
// "string" (or a list of only "string"), or else an enum or const of
// strings.
func schemaIsString(raw json.RawMessage) bool {
	var s struct {
		Type  any   `json:"type"`
		Enum  []any `json:"enum"`
		Const any   `json:"const"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	switch t := s.Type.(type) {
	case string:
		return t == "string"
	case []any:
		for _, x := range t {
			if x != "string" {
				return false
			}
		}
		return len(t) > 0
	}
	if _, ok := s.Const.(string); ok {
		return true
	}
	for _, e := range s.Enum {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return len(s.Enum) > 0
}
