package callformat

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// The Command R7B format (CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja):
// a plan in a thinking block, then the calls as one JSON array in an
// action block, each call numbered by the model,
//
//	<|START_THINKING|>I will read pom.xml.<|END_THINKING|><|START_ACTION|>[
//	    {"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "pom.xml"}},
//	    {"tool_call_id": "1", "tool_name": "read_file", "parameters": {"path": "README.md"}}
//	]<|END_ACTION|>
//
// and an answer in a response block:
//
//	<|START_RESPONSE|>pom.xml declares the project demo.<|END_RESPONSE|>
//
// as the template renders an assistant's turns and llama.cpp's
// common/chat.cpp reads them. The response markers are dropped from the
// content, wherever they stand and with or without calls: the template
// writes them around the content of every text answer in the history, so
// kept they would be written twice.
//
// The model's tool_call_id is the call's id, as in llama.cpp. The template
// does not render the history's ids: it numbers the calls of the whole
// conversation itself, and gives each tool result the number of the first
// call with the result's id. Any ids do, then, as long as no two calls of
// a conversation share one, which the agent sees to. The grammar asks for
// the template's numbers, 1 to 10 digits, as llama.cpp's does.
//
// llama.cpp reads reasoning only at the start of a reply, and only the
// first action block; this parser reads thinking and action blocks
// wherever they stand, as the other formats here read theirs. A missing
// <|END_ACTION|> at the end is not required: the engine may stop at the
// end-of-turn token first.

const (
	r7bActionOpen    = "<|START_ACTION|>"
	r7bActionClose   = "<|END_ACTION|>"
	r7bResponseOpen  = "<|START_RESPONSE|>"
	r7bResponseClose = "<|END_RESPONSE|>"
	r7bIDKey         = "tool_call_id"
	r7bNameKey       = "tool_name"
)

// r7bThink are Command R7B's reasoning markers.
var r7bThink = grammar.Block{Open: "<|START_THINKING|>", Close: "<|END_THINKING|>"}

// r7bOutside matches a call written outside an action block: a bare call
// object, and an <|END_ACTION|> with no <|START_ACTION|> before it.
var r7bOutside = regexp.MustCompile(`\{\s*"(?:tool_call_id|tool_name)"\s*:|<\|END_ACTION\|>`)

func scanCommandR7B(f *format, s *scanState) {
	readers := droppedMarkers(f.dropped)
	readers[r7bActionOpen] = r7bAction
	scanThinking(s, r7bThink, f.opts.ReasoningOpen, readers)
}

// r7bAction reads the array of calls after <|START_ACTION|>, and
// <|END_ACTION|>.
func r7bAction(s *scanState, pos int) (int, bool) {
	t := s.text
	i := skipSpace(t, pos)
	switch {
	case i == len(t):
		return s.cutOff(s.call(), r7bActionOpen)
	case t[i] != '[':
		s.content(r7bActionOpen)
		s.problem(OutsideFormat, "%s is not followed by a JSON array of calls", r7bActionOpen)
		return pos, true
	}
	end, ok := s.r7bCalls(i)
	if !ok {
		return end, ok
	}
	j := skipSpace(t, end)
	switch {
	case strings.HasPrefix(t[j:], r7bActionClose):
		return j + len(r7bActionClose), true
	case !s.final && isPrefix(t[j:], r7bActionClose):
		return len(t), false
	}
	return end, true
}

// r7bCalls reads the JSON array of calls at s.text[i] == '[', each
// {"tool_call_id": ..., "tool_name": ..., "parameters": {...}}, the keys in
// any order and the id optional.
func (s *scanState) r7bCalls(i int) (int, bool) {
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
			return s.cutOff(c, r7bActionOpen)
		}
		if t[i] != '{' {
			c.fail(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
		ms, end, st := s.memo.scanObject(t, i)
		argsSeen := s.jsonCallFields(ms, c, r7bNameKey)
		if m := firstMember(ms, r7bIDKey); m != nil {
			id, ok, settled := memberString(t, m)
			c.id, c.idOK = id, settled && (ok || st != jsonMore)
		}
		switch st {
		case jsonMore:
			return s.cutOff(c, r7bActionOpen)
		case jsonBad:
			c.fail(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
		c.finish(argsSeen)
		if !c.nameOK || c.name == "" {
			c.fail(NoName, "call without a %q string", r7bNameKey)
		}
		i = skipSpace(t, end)
		switch {
		case i < len(t) && t[i] == ']':
			return i + 1, true
		case i < len(t) && t[i] == ',':
			i = skipSpace(t, i+1)
		case i == len(t):
			if s.final {
				s.problem(Unterminated, "unterminated %s array (the output was cut off)", r7bActionOpen)
			}
			return len(t), false
		default:
			s.problem(InvalidJSON, "not valid JSON: %s", jsonError(t[i:]))
			return len(t), false
		}
	}
}

// r7bListSpace is the layout around the calls of the array: the template
// writes a newline and four spaces before each call and a newline before
// the ']'. It is llama.cpp's whitespace rule, whatever
// grammar.Options.Whitespace says of the JSON inside a call, which the
// template writes with single spaces.
const r7bListSpace = `| " " | "\n"{1,2} [ \t]{0,20}`

// commandR7BGrammar writes one action block of calls, keys in the
// template's order, each numbered by the model.
func commandR7BGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	parallel, maxCalls := opts.Parallel, opts.MaxCalls
	opts.Parallel = false
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
		var alts []string
		for _, t := range tools {
			args, err := b.ToolArgs(t.Name, t.Parameters)
			if err != nil {
				return "", "", nil, err
			}
			alts = append(alts, b.Rule("tool-"+t.Name, fmt.Sprintf(`"{" space %s space ":" space "\"" [0-9]{1,10} "\"" space "," space %s space ":" space %s space "," space %s space ":" space %s "}"`,
				grammar.Quote(chat.QuoteJSON(r7bIDKey)), grammar.Quote(chat.QuoteJSON(r7bNameKey)), grammar.Quote(chat.QuoteJSON(t.Name)), grammar.Quote(chat.QuoteJSON("parameters")), args)))
		}
		obj := b.Rule("call-object", strings.Join(alts, " | "))
		ws := b.Rule("list-space", r7bListSpace)
		list := obj
		if parallel && maxCalls != 1 {
			rep := "*"
			if maxCalls > 1 {
				rep = fmt.Sprintf("{0,%d}", maxCalls-1)
			}
			list = obj + ` ("," ` + ws + " " + obj + ")" + rep
		}
		block := grammar.Quote(r7bActionOpen+"[") + " " + ws + " " + list + " " + ws + " " + grammar.Quote("]"+r7bActionClose)
		return b.Rule("call-block", block), "", []string{r7bActionOpen}, nil
	})
}
