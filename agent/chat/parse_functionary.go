package chat

import (
	"strings"

	"github.com/loopagent/loop/grammar"
)

// The Functionary v3.1 format (meetkai-functionary-medium-v3.1.jinja, a
// Llama 3.1 template): a call is the function's name in a tag and its
// arguments as one JSON object,
//
//	<function=read_file>{"path": "pom.xml"}</function>
//
// content may come before it, and several calls may follow each other.
// Unlike Qwen3-Coder's <function=NAME>, whose body is <parameter=...> tags,
// the body is JSON. As llama.cpp (common_chat_parse_functionary_v3_1_llama_3_1),
// a call whose JSON is complete is taken when the output ends before
// </function>; <|eom_id|> and <|eot_id|> at the end are dropped. The
// template's <|python_tag|> code calls (its built-in ipython tool) are not
// read.

func scanFunctionary31(_ *format, s *scanState) {
	s.text = stripLlamaEnd(s.text, s.final)
	scanTagged(s, false, map[string]callReader{fnOpen: functionaryCall})
}

// functionaryCall reads NAME>{...}</function> after "<function=".
func functionaryCall(s *scanState, pos int) (int, bool) {
	t := s.text
	c := s.call()
	j := strings.IndexAny(t[pos:], ">\n<{")
	if j < 0 {
		return s.cutOff(c, fnOpen)
	}
	if t[pos+j] != '>' || !validToolName(t[pos:pos+j]) {
		c.fail(Malformed, "%s without a function name and '>'", fnOpen)
		if k := strings.Index(t[pos:], fnClose); k >= 0 {
			return pos + k + len(fnClose), true
		}
		return len(t), false
	}
	c.name, c.nameOK, c.idOK = t[pos:pos+j], true, true
	end, ok := s.jsonArgs(c, pos+j+1, fnOpen+c.name+">")
	if !ok {
		return end, ok
	}
	k := skipSpace(t, end)
	switch {
	case strings.HasPrefix(t[k:], fnClose):
		return k + len(fnClose), true
	case !s.final && isPrefix(t[k:], fnClose):
		return len(t), false
	}
	return end, true
}

// functionary31Grammar writes <function=NAME>{...}</function> calls.
func functionary31Grammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []Tool) (string, string, []string, error) {
		var alts []string
		for _, t := range tools {
			args, err := b.ToolArgs(t.Name, t.Parameters)
			if err != nil {
				return "", "", nil, err
			}
			alts = append(alts, b.Rule("tool-"+t.Name, grammar.Quote(fnOpen+t.Name+">")+" "+args+" "+grammar.Quote(fnClose)))
		}
		return b.Rule("call", strings.Join(alts, " | ")), "", []string{fnOpen}, nil
	})
}
