package callformat

import "strings"

// The Mistral formats. Mistral Nemo writes one JSON array of calls, each
// with the model's own 9-character id after the arguments:
//
//	[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}, "id": "a1B2c3D4e"}]
//
// Mistral Small 3.2 and Devstral (templates in /work/shared/chat-templates)
// write each call after its own [TOOL_CALLS], the name bare, an optional
// [CALL_ID], and the arguments after [ARGS]:
//
//	[TOOL_CALLS]read_file[CALL_ID]a1B2c3D4e[ARGS]{"path": "pom.xml"}
//
// Both are read. The model's ids are kept as written. In the array form a
// call is announced to a stream once its id is known, which is after its
// arguments, or its object ends without one.

const (
	toolCalls = "[TOOL_CALLS]"
	callIDTag = "[CALL_ID]"
	argsTag   = "[ARGS]"
)

func scanMistral(_ *format, s *scanState) {
	t := s.text
	pos, _ := s.resume(topLoop)
	for ok := true; ok; {
		s.settle(topLoop, pos)
		j := s.indexAt(pos, toolCalls)
		if j < 0 {
			s.content(t[pos:s.upTo(pos, toolCalls)])
			return
		}
		s.content(t[pos : pos+j])
		i := skipSpace(t, pos+j+len(toolCalls))
		switch {
		case i == len(t):
			pos, ok = s.cutOff(s.call(), toolCalls)
		case t[i] == '[':
			pos, ok = s.jsonArray(i, toolCalls, true)
		default:
			pos, ok = s.mistralNamed(i)
		}
	}
}

// jsonArray reads the JSON array of calls at s.text[i] == '[', each
// {"name": ..., "arguments": ...}, with an "id" member when ids is set;
// what names the call markup in problems.
func (s *scanState) jsonArray(i int, what string, ids bool) (int, bool) {
	t := s.text
	start := i
	i = skipSpace(t, i+1)
	if i < len(t) && t[i] == ']' {
		return i + 1, true
	}
	if p, ok := s.resume(start); ok {
		i = p
	}
	for {
		s.settle(start, i)
		c := s.call()
		if i == len(t) {
			return s.cutOff(c, what)
		}
		if t[i] != '{' {
			c.fail(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
		ms, end, st := s.memo.scanObject(t, i)
		argsSeen := s.jsonCallFields(ms, c, "name")
		c.idOK = !ids
		if m := firstMember(ms, "id"); ids && m != nil {
			id, ok, settled := memberString(t, m)
			c.id, c.idOK = id, settled && (ok || st != jsonMore)
		}
		switch st {
		case jsonMore:
			return s.cutOff(c, what)
		case jsonBad:
			c.fail(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
		c.finish(argsSeen)
		i = skipSpace(t, end)
		switch {
		case i < len(t) && t[i] == ']':
			return i + 1, true
		case i < len(t) && t[i] == ',':
			i = skipSpace(t, i+1)
		case i == len(t):
			if s.final {
				s.problem(Unterminated, "unterminated %s array (the output was cut off)", what)
			}
			return len(t), false
		default:
			s.problem(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
	}
}

// mistralNamed reads NAME[CALL_ID]ID[ARGS]{...} at i; [CALL_ID] is optional.
func (s *scanState) mistralNamed(i int) (int, bool) {
	t := s.text
	c := s.call()
	j := strings.IndexByte(t[i:], '[')
	if j < 0 {
		return s.cutOff(c, toolCalls)
	}
	name := strings.TrimRight(t[i:i+j], " \t\n\r")
	if !validToolName(name) {
		c.fail(Malformed, "%s is followed by neither a JSON array nor NAME[ARGS]", toolCalls)
		return len(t), false
	}
	c.name, c.nameOK = name, true
	i += j
	if strings.HasPrefix(t[i:], callIDTag) {
		i += len(callIDTag)
		k := strings.IndexByte(t[i:], '[')
		if k < 0 {
			return s.cutOff(c, toolCalls+name)
		}
		c.id = t[i : i+k]
		i += k
	}
	switch {
	case strings.HasPrefix(t[i:], argsTag):
		c.idOK = true
		i += len(argsTag)
	case !s.final && (isPrefix(t[i:], argsTag) || isPrefix(t[i:], callIDTag)):
		return len(t), false
	default:
		c.fail(Malformed, "%s%s is not followed by %s", toolCalls, name, argsTag)
		return len(t), false
	}
	return s.jsonArgs(c, i, toolCalls+name+argsTag)
}

// jsonArgs reads the call's arguments, a JSON value, at i.
func (s *scanState) jsonArgs(c *callItem, i int, what string) (int, bool) {
	t := s.text
	i = skipSpace(t, i)
	end, st := s.memo.scanJSON(t, i)
	if i < len(t) {
		m := jsonMember{val: i, end: end, st: st}
		c.args, c.encoded = s.memo.memberArgs(t, &m)
	}
	switch {
	case st == jsonBad:
		c.fail(InvalidJSON, "arguments of %s are not valid JSON: %s", c.name, jsonError(t[i:]))
		return len(t), false
	case st == jsonMore && s.final && end == len(t) && i < len(t) && t[i] != '{' && t[i] != '[' && t[i] != '"':
		c.finish(true) // a number or literal that ends the text
		return end, true
	case st == jsonMore:
		return s.cutOff(c, what)
	}
	c.finish(true)
	return end, true
}

// validToolName reports whether name could be a function name.
func validToolName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(isIdentChar(c, false) || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
