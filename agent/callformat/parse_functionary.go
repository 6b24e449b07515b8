package callformat

import (
	"strings"

	"github.com/loopagent/loop/agent/chat"
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
		if k := s.indexAt(pos, fnClose); k >= 0 {
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
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
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

// The Functionary v3.2 format (meetkai-functionary-medium-v3.2.jinja):
// every message of the reply is a recipient line and a body, after ">>>";
// the generation prompt ends with the first ">>>", so the reply starts with
// a recipient:
//
//	all
//	I will read it.>>>read_file
//	{"path": "pom.xml"}
//
// The recipient "all" is the user: its body is content up to the next
// ">>>"; any other recipient is a function, and its body the arguments, as
// llama.cpp reads them (common_chat_parse_functionary_v3_2). A first line
// that is neither is content: the model wrote plain text.

const fnRecipient = ">>>"

func scanFunctionary32(f *format, s *scanState) {
	s.text = stripLlamaEnd(s.text, s.final)
	t := s.text
	pos, ok := s.resume(topLoop)
	if !ok && strings.HasPrefix(t, fnRecipient) {
		pos = len(fnRecipient)
	}
	for ok = true; ok && pos < len(t); {
		s.settle(topLoop, pos)
		pos, ok = s.functionaryMessage(f, pos)
	}
}

// functionaryMessage reads RECIPIENT\nBODY at pos, and the >>> after it.
// A recipient is a function when it is one of the tools or its body is a
// JSON object; a first line like "Hello" starts plain text.
func (s *scanState) functionaryMessage(f *format, pos int) (int, bool) {
	t := s.text
	nl := strings.IndexByte(t[pos:], '\n')
	if nl < 0 && !s.final && (validToolName(t[pos:]) || t[pos:] == "") {
		return len(t), false // a recipient still being written
	}
	rcpt := ""
	if nl >= 0 {
		rcpt = t[pos : pos+nl]
	}
	body := pos + nl + 1
	if rcpt == "all" {
		return s.functionaryText(body)
	}
	b := skipSpace(t, body)
	if !s.final && validToolName(rcpt) && f.tool(rcpt) == nil && b == len(t) {
		return len(t), false // a body that may still turn out to be JSON
	}
	if !validToolName(rcpt) || f.tool(rcpt) == nil && (b == len(t) || t[b] != '{') {
		return s.functionaryText(pos)
	}
	c := s.call()
	c.name, c.nameOK, c.idOK = rcpt, true, true
	end, ok := s.jsonArgs(c, body, fnRecipient+rcpt)
	if !ok {
		return end, ok
	}
	k := skipSpace(t, end)
	switch {
	case strings.HasPrefix(t[k:], fnRecipient):
		return k + len(fnRecipient), true
	case !s.final && isPrefix(t[k:], fnRecipient):
		return len(t), false
	}
	return s.functionaryText(k)
}

// functionaryText reads content up to the next >>>.
func (s *scanState) functionaryText(pos int) (int, bool) {
	t := s.text
	j := s.indexAt(pos, fnRecipient)
	if j < 0 {
		s.content(t[pos:s.upTo(pos, fnRecipient)])
		return len(t), false
	}
	s.content(t[pos : pos+j])
	return pos + j + len(fnRecipient), true
}

// functionary32Grammar writes NAME\n{...} messages, each after >>> but
// the first, which follows the prompt's. Lazy, it starts at >>>NAME or at
// NAME and a newline.
func functionary32Grammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
		var alts, triggers []string
		for _, t := range tools {
			args, err := b.ToolArgs(t.Name, t.Parameters)
			if err != nil {
				return "", "", nil, err
			}
			alts = append(alts, b.Rule("tool-"+t.Name, grammar.Quote(t.Name+"\n")+" "+args))
			triggers = append(triggers, fnRecipient+t.Name, t.Name+"\n")
		}
		return b.Rule("call", grammar.Quote(fnRecipient)+"? ("+strings.Join(alts, " | ")+")"), "", triggers, nil
	})
}
