package callformat

import (
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// The families that write their calls as one JSON array after a marker,
// each call {"name": ..., "arguments": {...}}:
//
//	 functools[{"name": "read_file", "arguments": {"path": "pom.xml"}}]           FireFunction v2
//	<TOOLCALL>[{"name": "read_file", "arguments": {"path": "pom.xml"}}]</TOOLCALL>  Nemotron Nano v2
//
// as their templates (chat-templates-more) render an assistant's calls and
// llama.cpp's common/chat.cpp reads them. Content may come before the
// marker; Nemotron reasons in <think> first. A close tag the output ends
// before is not required: the engine may stop at the end-of-generation
// token first.

// jsonList is the markup of one such family.
type jsonList struct {
	open  string // the marker before the array, or that ends with its '['
	close string // the tag after its ']', or ""
}

var (
	fireFunctionList = jsonList{open: "functools["}
	nemotronList     = jsonList{open: "<TOOLCALL>", close: "</TOOLCALL>"}
)

// scanJSONList returns the scan function of a family.
func scanJSONList(l jsonList) func(f *format, s *scanState) {
	return func(f *format, s *scanState) {
		scanTagged(s, f.opts.ReasoningOpen, map[string]callReader{l.open: l.calls})
	}
}

// calls reads the array after the marker, and the close tag.
func (l jsonList) calls(s *scanState, pos int) (int, bool) {
	t := s.text
	i := skipSpace(t, pos)
	if strings.HasSuffix(l.open, "[") {
		i = pos - 1
	}
	switch {
	case i == len(t):
		return s.cutOff(s.call(), l.open)
	case t[i] != '[':
		s.content(l.open)
		s.problem(OutsideFormat, "%s is not followed by a JSON array of calls", l.open)
		return pos, true
	}
	end, ok := s.jsonArray(i, l.open, false)
	if !ok || l.close == "" {
		return end, ok
	}
	j := skipSpace(t, end)
	switch {
	case strings.HasPrefix(t[j:], l.close):
		return j + len(l.close), true
	case !s.final && isPrefix(t[j:], l.close):
		return len(t), false
	}
	return end, true
}

// jsonListGrammar is ToolCalls' grammar for a family: the array of call
// objects between the marker and the close tag.
func jsonListGrammar(l jsonList) func(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	gf := grammar.Format{Name: l.open, ListOpen: strings.TrimSuffix(l.open, "[") + "[", ListClose: "]" + l.close, Separator: ", ",
		NameKey: "name", ArgsKey: "arguments", Triggers: []string{l.open}}
	return func(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
		return grammar.ToolCalls(gf, chat.GrammarTools(f.tools), opts)
	}
}
