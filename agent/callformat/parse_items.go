package callformat

import (
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// Every format's parser is one scan function over the whole text. It runs
// in two modes. A final scan (Parse, StreamParser.Finish) decides
// everything: a call the text leaves open is Unterminated. A partial scan
// (StreamParser.Feed) reports only what more text cannot change: it holds
// back text that could still be the start of a marker, stops at a call it
// cannot decide yet, and reports a call's name and id once they are
// settled and its arguments as far as they go. The stream parser runs the
// partial scan on all the text so far and emits what grew since the last
// Feed, so what it emits is always a prefix of what Parse returns. Its
// scans share a scanMemo, through which the scan's steps and loops go on
// from where the last one left them (stream_memo.go).

// Malformed is a call whose markup, not its JSON, is broken: Qwen3-Coder's
// XML tags, Mistral's NAME[ARGS] header, Harmony's message header, or
// Llama 3's name.call(...).
const Malformed ProblemKind = "malformed"

// itemKind is the kind of a piece of a reply.
type itemKind int

const (
	kindContent itemKind = iota
	kindReasoning
	kindCall
	kindProblem
)

// item is one piece of a reply, in text order.
type item struct {
	kind    itemKind
	text    string    // content or reasoning
	call    *callItem // kindCall
	problem Problem   // kindProblem
}

// callItem is one call attempt as far as the text goes.
type callItem struct {
	name    string
	nameOK  bool   // name is settled and a string
	id      string // the model's id, if the format has them
	idOK    bool   // id is settled: written, or known to be absent
	args    string // the argument JSON text so far; fragments join to it
	head    string // in a stream's scan, the start of the arguments: head+args
	encoded bool   // the arguments came as a JSON string (encoded twice)
	done    bool   // the call's text is complete
	problem *Problem
}

// argsLen is the length of the argument text so far.
func (c *callItem) argsLen() int { return len(c.head) + len(c.args) }

// argsFrom returns the argument text so far from byte k on.
func (c *callItem) argsFrom(k int) string {
	if k >= len(c.head) {
		return c.args[k-len(c.head):]
	}
	return c.head[k:] + c.args
}

func (c *callItem) fail(kind ProblemKind, format string, args ...any) {
	c.problem = &Problem{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// finish marks the call complete; missing arguments mean {}.
func (c *callItem) finish(argsSeen bool) {
	c.done, c.idOK = true, true
	if !argsSeen {
		c.args = "{}"
	}
}

// toolCall checks a complete call: a name, and arguments that are a JSON
// object, returned compact with the keys in the model's order.
func (c *callItem) toolCall() (chat.ToolCall, *Problem) {
	if !c.nameOK || c.name == "" {
		return chat.ToolCall{}, &Problem{Kind: NoName, Message: `call without a "name" string`}
	}
	args, err := compactJSON(c.args)
	if err != nil {
		what := "arguments of " + c.name + " are"
		if c.encoded {
			what = "arguments string of " + c.name + " is"
		}
		return chat.ToolCall{}, &Problem{Kind: InvalidJSON, Message: fmt.Sprintf("%s not valid JSON: %v", what, err)}
	}
	if args[0] != '{' {
		return chat.ToolCall{}, &Problem{Kind: ArgsNotObject, Message: "arguments of " + c.name + " are not an object"}
	}
	return chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: c.name, Arguments: args}}, nil
}

// scanState is the input and output of one scan.
type scanState struct {
	text  string
	final bool
	items []item
	memo  *scanMemo // a stream's memo, nil in a final scan
}

func (s *scanState) content(t string) {
	if t != "" {
		s.items = append(s.items, item{kind: kindContent, text: t})
	}
}

func (s *scanState) reasoning(t string) {
	if t != "" {
		s.items = append(s.items, item{kind: kindReasoning, text: t})
	}
}

func (s *scanState) call() *callItem {
	c := &callItem{}
	s.items = append(s.items, item{kind: kindCall, call: c})
	return c
}

func (s *scanState) problem(kind ProblemKind, format string, args ...any) {
	s.items = append(s.items, item{kind: kindProblem, problem: Problem{Kind: kind, Message: fmt.Sprintf(format, args...)}})
}

// cutOff ends the scan at a call the text leaves open: Unterminated in a
// final scan, undecided in a partial one.
func (s *scanState) cutOff(c *callItem, what string) (int, bool) {
	if s.final {
		c.fail(Unterminated, "unterminated %s (the output was cut off)", what)
	}
	return len(s.text), false
}

// upTo returns the end of the text a scan may report from pos on: all of
// it in a final scan, else all but a suffix that could start a marker.
func (s *scanState) upTo(pos int, markers ...string) int {
	if s.final {
		return len(s.text)
	}
	return holdEnd(s.text, pos, markers...)
}

// holdEnd returns the index from which t[from:] could be the start of one
// of markers (len(t) when no suffix could be).
func holdEnd(t string, from int, markers ...string) int {
	cut := len(t)
	for _, m := range markers {
		for k := min(len(m)-1, len(t)-from); k > 0; k-- {
			if len(t)-k < cut && strings.HasSuffix(t, m[:k]) {
				cut = len(t) - k
				break
			}
		}
	}
	return cut
}

// isPrefix reports whether t could still grow into marker m (t is a
// proper prefix of m, or empty).
func isPrefix(t, m string) bool {
	return len(t) < len(m) && strings.HasPrefix(m, t)
}

// nextMarker finds the first of markers in the text from pos: its index
// and the marker, or -1.
func (s *scanState) nextMarker(pos int, markers ...string) (int, string) {
	best, which := -1, ""
	for _, m := range markers {
		if j := s.memo.index(s.text, pos, m); j >= 0 && (best < 0 || j < best || j == best && len(m) > len(which)) {
			best, which = j, m
		}
	}
	return best, which
}

// trimSpace trims ASCII white space: the trimming of Content and
// Reasoning. Unicode spaces stay, so that a space cut in the middle of its
// UTF-8 bytes by a stream chunk is treated the same before and after.
func trimSpace(s string) string { return strings.Trim(s, " \t\n\r\v\f") }

// finalize turns the items of a final scan into a Parsed. id gives the id
// of call attempt k.
func finalize(items []item, id func(k int, c *callItem) string) Parsed {
	var p Parsed
	var content, reasoning strings.Builder
	k := 0
	for _, it := range items {
		switch it.kind {
		case kindContent:
			content.WriteString(it.text)
		case kindReasoning:
			reasoning.WriteString(it.text)
		case kindProblem:
			p.Problems = append(p.Problems, it.problem)
		case kindCall:
			c := it.call
			n := k
			k++
			if c.problem == nil && !c.done {
				c.fail(Unterminated, "unterminated call (the output was cut off)")
			}
			if c.problem != nil {
				p.Problems = append(p.Problems, *c.problem)
				continue
			}
			tc, prob := c.toolCall()
			if prob != nil {
				p.Problems = append(p.Problems, *prob)
				continue
			}
			tc.ID = id(n, c)
			p.Calls = append(p.Calls, tc)
		}
	}
	p.Content, p.Reasoning = trimSpace(content.String()), trimSpace(reasoning.String())
	return p
}

// hasCallItem reports whether a scan found any call attempt.
func hasCallItem(items []item) bool {
	for _, it := range items {
		if it.kind == kindCall {
			return true
		}
	}
	return false
}
