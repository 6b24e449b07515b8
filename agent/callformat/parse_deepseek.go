package callformat

import (
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// The DeepSeek formats, as their templates render an assistant's calls
// and llama.cpp's common/chat.cpp reads them. DeepSeek R1 (llama.cpp's
// deepseek-r1 template and the R1-Distill templates):
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file
//	```json
//	{"path": "pom.xml"}
//	```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// DeepSeek V3.1:
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "pom.xml"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// Calls follow each other inside the block (R1-Distill puts a newline
// between them); reasoning comes first in <think>. A block the output ends
// in after a complete call is taken (R1-Distill's template never closes a
// block of one call), as is <｜end▁of▁sentence｜> at the end.

const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
	dsEOS        = "<｜end▁of▁sentence｜>"
	dsJSONOpen   = "\n```json\n"
	dsJSONClose  = "\n```"
)

// scanDeepSeek returns the scan of R1 (r1) or V3.1.
func scanDeepSeek(r1 bool) func(f *format, s *scanState) {
	return func(f *format, s *scanState) {
		s.text = stripEnds(s.text, s.final, []string{dsEOS})
		read := func(s *scanState, pos int) (int, bool) { return s.deepSeekBlock(pos, r1) }
		scanTagged(s, f.opts.ReasoningOpen, map[string]callReader{dsCallsBegin: read})
	}
}

// deepSeekBlock reads the calls of a block and its end.
func (s *scanState) deepSeekBlock(pos int, r1 bool) (int, bool) {
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
		case strings.HasPrefix(t[i:], dsCallBegin):
			var ok bool
			if pos, ok = s.deepSeekCall(i+len(dsCallBegin), r1); !ok {
				return pos, false
			}
			continue
		case strings.HasPrefix(t[i:], dsCallsEnd):
			return i + len(dsCallsEnd), true
		case !s.final && (isPrefix(t[i:], dsCallBegin) || isPrefix(t[i:], dsCallsEnd)):
			return len(t), false
		case i == len(t) && n > 0:
			return i, true
		case i == len(t):
			return s.cutOff(s.call(), dsCallsBegin)
		}
		s.call().fail(Malformed, "unexpected text in %s", dsCallsBegin)
		if k := s.indexAt(i, dsCallsEnd); k >= 0 {
			return i + k + len(dsCallsEnd), true
		}
		return len(t), false
	}
}

// deepSeekCall reads one call after <｜tool▁call▁begin｜>, up to and
// with <｜tool▁call▁end｜>.
func (s *scanState) deepSeekCall(pos int, r1 bool) (int, bool) {
	t := s.text
	c := s.call()
	j := s.indexAt(pos, dsSep)
	if j < 0 {
		return s.cutOff(c, dsCallBegin)
	}
	name, i := t[pos:pos+j], pos+j+len(dsSep)
	if r1 {
		k := s.indexAt(i, dsJSONOpen)
		if k < 0 {
			if !s.final || !strings.Contains(t[i:], "\n") {
				return s.cutOff(c, dsCallBegin)
			}
			c.fail(Malformed, "%sfunction%sNAME is not followed by a ```json block", dsCallBegin, dsSep)
			return len(t), false
		}
		name, i = t[i:i+k], i+k+len(dsJSONOpen)
	}
	if !validToolName(name) {
		c.fail(Malformed, "%s has no function name before its arguments", dsCallBegin)
		return len(t), false
	}
	c.name, c.nameOK, c.idOK = name, true, true
	end, ok := s.jsonArgs(c, i, dsCallBegin+name)
	if !ok {
		return end, ok
	}
	closing, k := dsCallEnd, skipSpace(t, end)
	if r1 {
		closing = strings.TrimSpace(dsJSONClose) + dsCallEnd
	}
	switch {
	case strings.HasPrefix(t[k:], closing):
		return k + len(closing), true
	case !s.final && isPrefix(t[k:], closing):
		return len(t), false
	case s.final && strings.TrimSpace(t[end:]) == "":
		return len(t), true
	}
	c.fail(Malformed, "the arguments of %s are not followed by %s", name, dsCallEnd)
	return len(t), false
}

// deepSeekGrammar writes a block of calls in the R1 or V3.1 form.
func deepSeekGrammar(r1 bool) func(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return func(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
		return buildBlock(f, opts, dsCallsBegin, dsCallsEnd, `"\n"?`, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
			var alts []string
			for _, t := range tools {
				args, err := b.ToolArgs(t.Name, t.Parameters)
				if err != nil {
					return "", "", nil, err
				}
				head, tail := dsCallBegin+t.Name+dsSep, dsCallEnd
				if r1 {
					head, tail = dsCallBegin+"function"+dsSep+t.Name+dsJSONOpen, dsJSONClose+dsCallEnd
				}
				alts = append(alts, b.Rule("tool-"+t.Name, grammar.Quote(head)+" "+args+" "+grammar.Quote(tail)))
			}
			return b.Rule("call", strings.Join(alts, " | ")), "", []string{dsCallsBegin}, nil
		})
	}
}
