package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
)

// Recovery: the forms and rules are in the package doc (doc.go).

// wrapperTags are the tags whose body holds call objects, in lower case.
var wrapperTags = map[string]bool{"tool_call": true, "tool": true, "tools": true, "function_call": true, "response": true, "json": true, "xml": true}

var (
	functionEq   = regexp.MustCompile(`^<function=([^>\s]+)>`)
	functionName = regexp.MustCompile(`^<function\s+name\s*=\s*["']([^"'>]+)["']\s*>`)
	wrapperOpen  = regexp.MustCompile(`^<([A-Za-z_]+)>`)
)

// maxDepth bounds how deep wrappers nest; maxTag is the longest opening
// tag, <function name="..."> included.
const maxDepth, maxTag = 4, 256

// mention is why a bare object after text is not taken.
const mention = "written after text: a mention, not a call"

// candidate is a piece of content that may hold calls.
type candidate struct {
	kind       Kind
	start, end int    // the span in the text
	name       string // a function tag's name: the body is its arguments
	body       string
	truncated  bool // no closing fence or tag
}

// recoverCalls takes the calls of p.Content's candidates that Check
// accepts, and reports the others.
func (f Fixer) recoverCalls(p callformat.Parsed) (callformat.Parsed, []Fix) {
	text := p.Content
	var fixes []Fix
	var kept strings.Builder
	onlyCalls, allTaken, anyTaken := true, true, false
	pos, bare := 0, true
	for pos < len(text) {
		c, ok := nextCandidate(text, pos, bare)
		if !ok {
			break
		}
		if strings.TrimSpace(text[pos:c.start]) != "" {
			onlyCalls = false
		}
		kept.WriteString(text[pos:c.start])
		found := callsIn(&c, 0)
		if c.kind == KindBareObject && c.end == c.start+1 {
			bare = false // an object that never closes holds the rest of the text
		}
		if c.kind == KindBareObject && !onlyCalls {
			for i := range found {
				found[i].Refused = mention
			}
		}
		taken := f.take(found)
		fixes = append(fixes, found...)
		switch {
		case taken:
			anyTaken = true
			p.Calls = append(p.Calls, callsOf(found)...)
		case len(found) > 0:
			allTaken, onlyCalls = false, false
			kept.WriteString(text[c.start:c.end])
		default:
			onlyCalls = false
			kept.WriteString(text[c.start:c.end])
		}
		pos = c.end
	}
	if !anyTaken {
		return p, fixes
	}
	kept.WriteString(text[pos:])
	p.Content = strings.Trim(kept.String(), " \t\n\r\v\f")
	if allTaken {
		p.Problems = dropOutsideFormat(p.Problems)
	}
	return p, fixes
}

// take checks the calls of one candidate: all are taken, or none.
func (f Fixer) take(found []Fix) bool {
	if len(found) == 0 {
		return false
	}
	ok := true
	for i := range found {
		if found[i].Refused == "" {
			if err := f.Check(found[i].Call); err != nil {
				found[i].Refused = err.Error()
			}
		}
		ok = ok && found[i].Refused == ""
	}
	if !ok {
		for i := range found {
			if found[i].Refused == "" {
				found[i].Refused = "in one block with a refused call"
			}
		}
	}
	return ok
}

func callsOf(fixes []Fix) []chat.ToolCall {
	out := make([]chat.ToolCall, len(fixes))
	for i, f := range fixes {
		out[i] = f.Call
	}
	return out
}

func dropOutsideFormat(problems []callformat.Problem) []callformat.Problem {
	var out []callformat.Problem
	for _, p := range problems {
		if p.Kind != callformat.OutsideFormat {
			out = append(out, p)
		}
	}
	return out
}

// nextCandidate finds the first fence, known tag or, if bare, '{' in text
// from pos.
func nextCandidate(text string, pos int, bare bool) (candidate, bool) {
	for k := pos; k < len(text); k++ {
		switch text[k] {
		case '`':
			if strings.HasPrefix(text[k:], "```") {
				return fence(text, k), true
			}
		case '<':
			if c, ok := tag(text, k); ok {
				return c, true
			}
		case '{':
			if !bare {
				continue
			}
			return candidate{kind: KindBareObject, start: k, end: k, body: text[k:]}, true
		}
	}
	return candidate{}, false
}

// fence reads a Markdown code fence that starts at text[k].
func fence(text string, k int) candidate {
	c := candidate{kind: KindFenced, start: k}
	from := k + 3
	if nl := strings.IndexByte(text[from:], '\n'); nl >= 0 && isInfo(text[from:from+nl]) {
		from += nl + 1
	}
	j := strings.Index(text[from:], "```")
	if j < 0 {
		c.body, c.end, c.truncated = text[from:], len(text), true
		return c
	}
	c.body, c.end = text[from:from+j], from+j+3
	return c
}

// isInfo reports whether s is a fence's info string: a language name.
func isInfo(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isIdent(c) || c == '-' || c == '+' || c == '.' || c == ' ' || c == '\r') {
			return false
		}
	}
	return true
}

// tag reads <function=NAME>, <function name="NAME"> or a wrapper tag that
// starts at text[k], up to its closing tag.
func tag(text string, k int) (candidate, bool) {
	rest := text[k:min(len(text), k+maxTag)]
	c := candidate{kind: KindFunctionTag, start: k}
	var open, closeTag string
	if m := functionEq.FindStringSubmatch(rest); m != nil {
		open, c.name, closeTag = m[0], m[1], "</function>"
	} else if m := functionName.FindStringSubmatch(rest); m != nil {
		open, c.name, closeTag = m[0], m[1], "</function>"
	} else if m := wrapperOpen.FindStringSubmatch(rest); m != nil && wrapperTags[asciiLower(m[1])] {
		open, closeTag, c.kind = m[0], "</"+asciiLower(m[1])+">", KindWrapper
	} else {
		return candidate{}, false
	}
	from := k + len(open)
	j := strings.Index(asciiLower(text[from:]), closeTag)
	if j < 0 {
		c.body, c.end, c.truncated = text[from:], len(text), true
		return c, true
	}
	c.body, c.end = text[from:from+j], from+j+len(closeTag)
	return c, true
}

// asciiLower lowers ASCII letters only, so that byte offsets stay.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// callsIn reads the calls of a candidate, each a Fix of the candidate's
// kind, and sets a bare object's end. Nothing that looks like a call is
// no call: the candidate stays content.
func callsIn(c *candidate, depth int) []Fix {
	body := strings.TrimLeft(c.body, " \t\r\n")
	var fixes []Fix
	switch {
	case c.name != "":
		fixes = append(fixes, functionCall(c, body))
	case c.kind == KindBareObject:
		fix, end, ok := callObject(c.body, 0)
		c.end = c.start + end
		if ok {
			fixes = append(fixes, fix)
		} else if end == len(c.body) {
			c.end = c.start + 1 // a '{' in prose that never closes: look on after it
		}
	case strings.HasPrefix(body, "<") && depth < maxDepth:
		for pos, bare := 0, true; pos < len(body); {
			inner, ok := nextCandidate(body, pos, bare)
			if !ok {
				break
			}
			fixes = append(fixes, callsIn(&inner, depth+1)...)
			bare = bare && !(inner.kind == KindBareObject && inner.end == inner.start+1)
			pos = max(inner.end, inner.start+1)
		}
	default:
		fixes = objects(body)
	}
	for i := range fixes {
		if c.truncated && fixes[i].Refused == "" {
			fixes[i].Refused = Truncated
		}
		fixes[i].Kind = c.kind
	}
	return fixes
}

// functionCall reads the arguments of <function=NAME>: the body is the
// arguments object, or empty.
func functionCall(c *candidate, body string) Fix {
	fix := Fix{Call: chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: c.name, Arguments: "{}"}}}
	if strings.TrimSpace(body) == "" {
		return fix
	}
	if !strings.HasPrefix(body, "{") {
		fix.Refused = "not a JSON object"
		return fix
	}
	s := scan(body, 0)
	fix.Repairs = s.repairs
	args, err := compactObject(s.out.String())
	switch {
	case s.truncated:
		fix.Refused = Truncated
	case s.err != nil:
		fix.Refused = s.err.Error()
	case err != nil:
		fix.Refused = err.Error()
	default:
		fix.Call.Function.Arguments = args
	}
	return fix
}

// objects reads the call objects of a wrapper's body: objects separated by
// white space or commas, or an array of them.
func objects(body string) []Fix {
	var fixes []Fix
	pos := 0
	if strings.HasPrefix(body, "[") {
		pos = 1
	}
	for {
		for pos < len(body) && strings.IndexByte(" \t\r\n,", body[pos]) >= 0 {
			pos++
		}
		if pos >= len(body) || body[pos] != '{' {
			return fixes
		}
		fix, end, ok := callObject(body, pos)
		if ok {
			fixes = append(fixes, fix)
		}
		pos = end
	}
}

// callObject reads {"name": ..., "arguments": ...} at text[start]: the
// fix, the end of the object, and whether it is a call (has a "name").
func callObject(text string, start int) (Fix, int, bool) {
	s := scan(text, start)
	out := s.out.String()
	fix := Fix{Repairs: s.repairs}
	var obj struct {
		Name       *string         `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil || obj.Name == nil || *obj.Name == "" {
		return fix, s.end, false
	}
	fix.Call = chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: *obj.Name, Arguments: "{}"}}
	args := obj.Arguments
	if args == nil {
		args = obj.Parameters
	}
	if len(args) > 0 {
		var encoded string
		if json.Unmarshal(args, &encoded) == nil {
			args = json.RawMessage(encoded)
		}
		compact, err := compactObject(string(args))
		if err != nil {
			fix.Refused = err.Error()
		}
		fix.Call.Function.Arguments = compact
	}
	if s.truncated {
		fix.Refused = Truncated
	}
	return fix, s.end, true
}

// errNotObject refuses arguments that are not a JSON object.
var errNotObject = errors.New("arguments are not a JSON object")

// compactObject returns a JSON object without white space, keys in the
// order written, or an error when text is not one.
func compactObject(text string) (string, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil || !bytes.HasPrefix(b.Bytes(), []byte("{")) {
		return "{}", errNotObject
	}
	return b.String(), nil
}
