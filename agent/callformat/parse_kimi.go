package callformat

import (
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// The Kimi K2 format (moonshotai-Kimi-K2.jinja): calls in a section, each
// with an id that names the function and counts the calls,
//
//	<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{"path": "pom.xml"}<|tool_call_end|><|tool_calls_section_end|>
//
// as llama.cpp reads them: the name is what stands between "functions."
// and the last ':'; the id is kept as the model wrote it (the template
// writes these ids whatever the history's ids are, so they need no
// scheme). Content may come before the section.

const (
	kimiSectionBegin = "<|tool_calls_section_begin|>"
	kimiSectionEnd   = "<|tool_calls_section_end|>"
	kimiCallBegin    = "<|tool_call_begin|>"
	kimiArgsBegin    = "<|tool_call_argument_begin|>"
	kimiCallEnd      = "<|tool_call_end|>"
)

func scanKimi(f *format, s *scanState) {
	scanTagged(s, f.opts.ReasoningOpen, map[string]callReader{kimiSectionBegin: kimiSection})
}

// kimiSection reads the calls of a section and its end.
func kimiSection(s *scanState, pos int) (int, bool) {
	t := s.text
	start, n := pos, 0
	if p, ok := s.resume(start); ok {
		pos, n = p, 1 // a loop settles after a call
	}
	for ; ; n++ {
		if n > 0 {
			s.settle(start, pos)
		}
		i := skipSpace(t, pos)
		switch {
		case strings.HasPrefix(t[i:], kimiCallBegin):
			var ok bool
			if pos, ok = s.kimiCall(i + len(kimiCallBegin)); !ok {
				return pos, false
			}
			continue
		case strings.HasPrefix(t[i:], kimiSectionEnd):
			return i + len(kimiSectionEnd), true
		case !s.final && (isPrefix(t[i:], kimiCallBegin) || isPrefix(t[i:], kimiSectionEnd)):
			return len(t), false
		case i == len(t) && n > 0:
			return i, true
		case i == len(t):
			return s.cutOff(s.call(), kimiSectionBegin)
		}
		s.call().fail(Malformed, "unexpected text in %s", kimiSectionBegin)
		if k := s.indexAt(i, kimiSectionEnd); k >= 0 {
			return i + k + len(kimiSectionEnd), true
		}
		return len(t), false
	}
}

// kimiCall reads ID<|tool_call_argument_begin|>{...}<|tool_call_end|>.
func (s *scanState) kimiCall(pos int) (int, bool) {
	t := s.text
	c := s.call()
	j := s.indexAt(pos, kimiArgsBegin)
	if j < 0 {
		return s.cutOff(c, kimiCallBegin)
	}
	id := strings.TrimSpace(t[pos : pos+j])
	name := strings.TrimPrefix(id, "functions.")
	if k := strings.LastIndexByte(name, ':'); k >= 0 {
		name = name[:k]
	}
	if !validToolName(name) {
		c.fail(Malformed, "%s%s does not name a function", kimiCallBegin, id)
		return len(t), false
	}
	c.name, c.nameOK, c.id, c.idOK = name, true, id, true
	end, ok := s.jsonArgs(c, pos+j+len(kimiArgsBegin), kimiCallBegin+id)
	if !ok {
		return end, ok
	}
	k := skipSpace(t, end)
	switch {
	case strings.HasPrefix(t[k:], kimiCallEnd):
		return k + len(kimiCallEnd), true
	case !s.final && isPrefix(t[k:], kimiCallEnd):
		return len(t), false
	case s.final && k == len(t):
		return k, true
	}
	c.fail(Malformed, "the arguments of %s are not followed by %s", id, kimiCallEnd)
	return len(t), false
}

// kimiGrammar writes a section of calls numbered from 0 by the model.
func kimiGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return buildBlock(f, opts, kimiSectionBegin, kimiSectionEnd, "", func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
		var alts []string
		for _, t := range tools {
			args, err := b.ToolArgs(t.Name, t.Parameters)
			if err != nil {
				return "", "", nil, err
			}
			alts = append(alts, b.Rule("tool-"+t.Name, grammar.Quote(kimiCallBegin+"functions."+t.Name+":")+" [0-9]{1,3} "+
				grammar.Quote(kimiArgsBegin)+" "+args+" "+grammar.Quote(kimiCallEnd)))
		}
		return b.Rule("call", strings.Join(alts, " | ")), "", []string{kimiSectionBegin}, nil
	})
}
