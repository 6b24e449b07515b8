package callformat

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/loopagent/loop/grammar"
)

// The Hermes format (Hermes 2 Pro, Hermes 3, Qwen 2.5, Qwen3):
//
//	<think>reasoning</think>
//	content
//	<tool_call>
//	{"name": "read_file", "arguments": {"path": "pom.xml"}}
//	</tool_call>
//
// repeated for parallel calls, content allowed before, between and after
// them. Qwen-Agent's and vLLM's parsers cut the body at the first
// </tool_call>; this one follows llama.cpp and reads the JSON first, so a
// "</tool_call>" inside a string argument does not end the call, and falls
// back to the first </tool_call> only when the body is not JSON.
//
// llama.cpp's parser also takes the forms Hermes-style models write when
// they stray (tests/test-chat.cpp): a bare {"name": ...} object,
// <function=NAME>{...}</function> and <function name="NAME">{...}
// </function>. This one reads only <tool_call> bodies, and reports the
// others as OutsideFormat, so that the agent can repair the reply or remind
// the model of the format. A </think> without a <think> before it is
// content, kept as written, as in llama.cpp, which reads reasoning only at
// the start of a reply.

const (
	thinkOpen     = "<think>"
	thinkClose    = "</think>"
	toolCallOpen  = "<tool_call>"
	toolCallClose = "</tool_call>"
)

// hermesOutside matches calls written outside <tool_call>: a bare JSON
// call object, <function=NAME> and <function name="NAME">, and a
// </tool_call> with no <tool_call> before it, the tail of a call whose
// start the model left out (the demo model wrote `It answers.go"}}` and
// </tool_call>, which was taken as its final answer). The content is kept
// as written, as llama.cpp keeps it; only the problem is added.
var hermesOutside = regexp.MustCompile(`\{\s*"name"\s*:|<function=[^>\s]+>|<function\s+name\s*=|</tool_call>`)

// argKeys are the keys of the arguments: "parameters" is an alias.
var argKeys = []string{"arguments", "parameters"}

func scanHermes(f *format, s *scanState) {
	scanTagged(s, f.opts.ReasoningOpen, map[string]callReader{toolCallOpen: hermesCall})
}

// callReader reads a call from pos, after its opening marker: it returns
// where the scan goes on, or false to stop.
type callReader func(s *scanState, pos int) (int, bool)

// scanTagged reads content with <think> blocks and calls, each started by
// one of the markers of calls.
func scanTagged(s *scanState, reasoningOpen bool, calls map[string]callReader) {
	scanThinking(s, thinkTags, reasoningOpen, calls)
}

// thinkTags are the <think> markers of reasoning.
var thinkTags = grammar.Block{Open: thinkOpen, Close: thinkClose}

// scanThinking is scanTagged with the reasoning markers think.
func scanThinking(s *scanState, think grammar.Block, reasoningOpen bool, calls map[string]callReader) {
	t := s.text
	markers := []string{think.Open}
	for m := range calls {
		markers = append(markers, m)
	}
	pos, ok := s.resume(topLoop)
	if !ok && reasoningOpen {
		if pos, ok = s.reasoningUntil(0, think.Close); !ok {
			return
		}
	}
	for {
		s.settle(topLoop, pos)
		j, m := s.nextMarker(pos, markers...)
		if j < 0 {
			s.content(t[pos:s.upTo(pos, markers...)])
			return
		}
		s.content(t[pos:j])
		pos = j + len(m)
		switch m {
		case think.Open:
			pos, ok = s.reasoningUntil(pos, think.Close)
		default:
			pos, ok = calls[m](s, pos)
		}
		if !ok {
			return
		}
	}
}

// reasoningUntil reads reasoning from pos to close (</think>). Reasoning
// the output cuts off is reasoning still.
func (s *scanState) reasoningUntil(pos int, close string) (int, bool) {
	j := s.indexAt(pos, close)
	if j < 0 {
		s.reasoning(s.text[pos:s.upTo(pos, close)])
		return len(s.text), false
	}
	s.reasoning(s.text[pos : pos+j])
	return pos + j + len(close), true
}

// hermesCall reads {"name": ..., "arguments": ...} and </tool_call>.
func hermesCall(s *scanState, pos int) (int, bool) {
	t := s.text
	c := s.call()
	c.idOK = true
	i := skipSpace(t, pos)
	if i >= len(t) {
		return s.cutOff(c, toolCallOpen)
	}
	if t[i] == '{' {
		ms, end, st := s.memo.scanObject(t, i)
		argsSeen := s.jsonCallFields(ms, c, "name")
		switch st {
		case jsonMore:
			return s.cutOff(c, toolCallOpen)
		case jsonDone:
			j := skipSpace(t, end)
			if strings.HasPrefix(t[j:], toolCallClose) {
				c.finish(argsSeen)
				return j + len(toolCallClose), true
			}
			if isPrefix(t[j:], toolCallClose) {
				return s.cutOff(c, toolCallOpen)
			}
		}
	}
	return s.skipBroken(c, pos, toolCallOpen, toolCallClose)
}

// jsonCallFields sets the name and arguments of c from an object's
// members: the first member named nameKey, and the first "arguments" or
// "parameters". It reports whether the arguments were there.
func (s *scanState) jsonCallFields(ms []jsonMember, c *callItem, nameKey string) bool {
	c.name, c.nameOK, _ = memberString(s.text, firstMember(ms, nameKey))
	m := firstMember(ms, argKeys...)
	c.args, c.encoded = s.memo.memberArgs(s.text, m)
	return m != nil
}

// skipBroken fails a call whose body does not parse and goes on after the
// first close tag from pos; without one, the call is cut off.
func (s *scanState) skipBroken(c *callItem, pos int, open, close string) (int, bool) {
	t := s.text
	j := s.indexAt(pos, close)
	if j < 0 {
		c.fail(Unterminated, "unterminated %s (the output was cut off)", open)
		return len(t), false
	}
	body := trimSpace(t[pos : pos+j])
	if json.Valid([]byte(body)) {
		c.fail(NoName, `call without a "name" string`)
	} else {
		c.fail(InvalidJSON, "not valid JSON: %s", jsonError(body))
	}
	return pos + j + len(close), true
}
