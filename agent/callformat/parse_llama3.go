package callformat

import (
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// The Llama 3.1/3.2 format for custom tools: the reply is the call,
//
//	{"name": "read_file", "parameters": {"path": "pom.xml"}}
//
// ("arguments" is accepted too, and a leading "type": "function"), or,
// after <|python_tag|>, a JSON call or a built-in call such as
// brave_search.call(query="x"). As in llama.cpp (common_chat_parse_llama_3_1)
// a reply is a call only when it starts with {"name": STRING,
// "parameters": ...; any other JSON, such as {"answer": 42}, is content.
// Several calls may follow each other, separated by white space or ";".
// <|eom_id|> and <|eot_id|> at the end, should the engine leave them in
// the text, are dropped.

const pythonTag = "<|python_tag|>"

var llamaEnd = []string{"<|eom_id|>", "<|eot_id|>"}

func scanLlama3(f *format, s *scanState) {
	t := stripLlamaEnd(s.text, s.final)
	s.text = t
	pos, ok := 0, true
	for ok {
		if pos, ok = s.llamaCalls(pos); !ok {
			return
		}
		j := s.indexAt(pos, pythonTag)
		if j < 0 {
			s.content(t[pos:s.upTo(pos, pythonTag)])
			return
		}
		s.content(t[pos : pos+j])
		pos, ok = s.pythonTagCall(pos + j + len(pythonTag))
	}
}

// stripLlamaEnd drops the end-of-turn tokens at the end of t, and in a
// partial scan what could still become one.
func stripLlamaEnd(t string, final bool) string { return stripEnds(t, final, llamaEnd) }

// stripEnds drops the end tokens ends at the end of t, and in a partial
// scan what could still become one.
func stripEnds(t string, final bool, ends []string) string {
	for {
		n := len(t)
		if !final {
			t = t[:holdEnd(t, 0, ends...)]
		}
		for _, m := range ends {
			t = strings.TrimSuffix(t, m)
		}
		if len(t) == n {
			return t
		}
	}
}

// llamaCalls reads the JSON calls at pos, if any, and where they end the
// text goes on as content. It returns false to stop the scan.
func (s *scanState) llamaCalls(pos int) (int, bool) {
	t := s.text
	start := pos
	if p, ok := s.resume(start); ok {
		pos = p
	}
	for {
		s.settle(start, pos)
		i := skipSpace(t, pos)
		if i < len(t) && t[i] == ';' && pos > 0 {
			i = skipSpace(t, i+1)
		}
		if i == len(t) {
			if s.final {
				return pos, true
			}
			return pos, false
		}
		if t[i] != '{' {
			return pos, true
		}
		ms, end, st := s.memo.scanObject(t, i)
		decided, isCall := llamaDecide(t, ms, st)
		if !decided && (!s.final || st != jsonMore) {
			return pos, s.final // undecided, or an object that is not a call
		}
		if !isCall && decided {
			return pos, true
		}
		c := s.call()
		c.idOK = true
		argsSeen := s.jsonCallFields(ms, c, "name")
		switch st {
		case jsonMore:
			return s.cutOff(c, "call")
		case jsonBad:
			c.fail(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
		c.finish(argsSeen)
		pos = end
	}
}

// llamaDecide says whether the object's members so far start a call:
// ["type": "function",] "name": STRING, then "parameters" or "arguments".
func llamaDecide(t string, ms []jsonMember, st jsonStatus) (decided, isCall bool) {
	k := 0
	if len(ms) > 0 && ms[0].key == "type" {
		v, ok, settled := memberString(t, &ms[0])
		if !settled {
			return false, false
		}
		if !ok || v != "function" {
			return true, false
		}
		k = 1
	}
	if len(ms) <= k {
		return st != jsonMore, false
	}
	if ms[k].key != "name" {
		return true, false
	}
	if _, ok, settled := memberString(t, &ms[k]); !settled || !ok {
		return settled, false
	}
	if len(ms) <= k+1 {
		return st != jsonMore, false
	}
	key := ms[k+1].key
	return true, key == "parameters" || key == "arguments"
}

// pythonTagCall reads what follows <|python_tag|>: JSON calls, or a
// built-in call name.call(key=value, ...).
func (s *scanState) pythonTagCall(pos int) (int, bool) {
	t := s.text
	i := skipSpace(t, pos)
	if i < len(t) && t[i] == '{' {
		c := s.call()
		c.idOK = true
		ms, end, st := s.memo.scanObject(t, i)
		argsSeen := s.jsonCallFields(ms, c, "name")
		switch st {
		case jsonMore:
			return s.cutOff(c, pythonTag+" call")
		case jsonBad:
			c.fail(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
		c.finish(argsSeen)
		return s.llamaCalls(end)
	}
	j := i
	for j < len(t) && isIdentChar(t[j], j == i) {
		j++
	}
	rest := t[j:]
	switch {
	case j > i && strings.HasPrefix(rest, ".call("):
		return s.builtinCall(t[i:j], j+len(".call("))
	case !s.final && (j == len(t) || j > i && isPrefix(rest, ".call(")):
		return len(t), false
	}
	s.problem(OutsideFormat, "%s is followed by neither a JSON call nor name.call(...)", pythonTag)
	return pos, true
}

func isIdentChar(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

// builtinCall reads key=value, ... ) of name.call( as JSON arguments.
// Values are JSON strings, numbers, true, false, null, or Python's True,
// False and None.
func (s *scanState) builtinCall(name string, i int) (int, bool) {
	t := s.text
	c := s.call()
	c.name, c.nameOK, c.idOK = name, true, true
	var args strings.Builder
	args.WriteString("{")
	for n := 0; ; n++ {
		i = skipSpace(t, i)
		if i < len(t) && t[i] == ')' {
			args.WriteString("}")
			c.args, c.done = args.String(), true
			return s.llamaCalls(i + 1)
		}
		if i == len(t) {
			return s.cutOff(c, name+".call(")
		}
		if n > 0 {
			if t[i] != ',' {
				c.fail(Malformed, "expected ',' or ')' in %s.call(...)", name)
				return len(t), false
			}
			i = skipSpace(t, i+1)
			args.WriteString(",")
		}
		key, v, next, st := builtinArg(t, i)
		switch st {
		case jsonMore:
			return s.cutOff(c, name+".call(")
		case jsonBad:
			c.fail(Malformed, "bad argument in %s.call(...)", name)
			return len(t), false
		}
		args.WriteString(chat.QuoteJSON(key) + ":" + v)
		i = next
	}
}

// builtinArg reads key=value at i.
func builtinArg(t string, i int) (key, value string, next int, st jsonStatus) {
	j := i
	for j < len(t) && isIdentChar(t[j], j == i) {
		j++
	}
	if j == len(t) {
		return "", "", j, jsonMore
	}
	key = t[i:j]
	j = skipSpace(t, j)
	if j == len(t) {
		return "", "", j, jsonMore
	}
	if key == "" || t[j] != '=' {
		return "", "", j, jsonBad
	}
	j = skipSpace(t, j+1)
	for py, js := range map[string]string{"True": "true", "False": "false", "None": "null"} {
		if strings.HasPrefix(t[j:], py) {
			return key, js, j + len(py), jsonDone
		}
		if isPrefix(t[j:], py) {
			return "", "", len(t), jsonMore
		}
	}
	if j == len(t) {
		return "", "", j, jsonMore
	}
	end, st := scanScalar(t, j)
	if st != jsonDone {
		return "", "", end, st
	}
	v, _ := compactJSON(t[j:end])
	return key, v, end, jsonDone
}
