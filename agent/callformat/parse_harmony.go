package callformat

import "strings"

// The Harmony format of gpt-oss (openai-gpt-oss-120b.jinja). A reply is a
// sequence of messages; the prompt ends with <|start|>assistant, so the
// first message starts at its header:
//
//	<|channel|>analysis<|message|>The user wants pom.xml.<|end|>
//	<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "pom.xml"}<|call|>
//
// A message addressed to=functions.NAME (in the role header or the channel
// header, on the commentary or analysis channel) is a call of NAME with the
// body as arguments. Other messages: analysis is reasoning, final and
// commentary are content. A body ends at <|end|>, <|call|>, <|return|>, a
// new <|start|>, or the end of the text: <|call|> and <|return|> are
// end-of-generation tokens that an engine may leave out, so a call whose
// JSON is complete at the end of the text is complete. Text outside any
// message is content; the markers themselves never are. Several content
// (or reasoning) messages are joined with a blank line.

const (
	hStart     = "<|start|>"
	hChannel   = "<|channel|>"
	hMessage   = "<|message|>"
	hConstrain = "<|constrain|>"
	hEnd       = "<|end|>"
	hCall      = "<|call|>"
	hReturn    = "<|return|>"
)

var harmonyMarkers = []string{hStart, hChannel, hMessage, hConstrain, hEnd, hCall, hReturn}

// headerStarts are the texts a header may start with at the start of a
// reply or after an end marker.
var headerStarts = []string{hChannel, hConstrain, "to=", " to="}

type harmonyScan struct {
	s                  *scanState
	content, reasoning bool // a non-blank message of that kind was seen
}

func scanHarmony(_ *format, s *scanState) {
	h := &harmonyScan{s: s}
	pos, seen, _ := s.resumeState(topLoop)
	h.content, h.reasoning = seen&1 != 0, seen&2 != 0
	for ok := true; ok && pos < len(s.text); {
		seen = 0
		if h.content {
			seen |= 1
		}
		if h.reasoning {
			seen |= 2
		}
		s.settleState(topLoop, pos, seen)
		pos, ok = h.message(pos)
	}
}

// message reads a message, or plain text up to the next marker.
func (h *harmonyScan) message(pos int) (int, bool) {
	s, t := h.s, h.s.text
	if strings.HasPrefix(t[pos:], hStart) {
		return h.header(pos + len(hStart))
	}
	for _, m := range headerStarts {
		if strings.HasPrefix(t[pos:], m) {
			return h.header(pos)
		}
	}
	if !s.final {
		for _, m := range append(headerStarts, hStart) {
			if isPrefix(t[pos:], m) {
				return len(t), false
			}
		}
	}
	j, m := s.nextMarker(pos, harmonyMarkers...)
	if j < 0 {
		h.add(false, t[pos:s.upTo(pos, harmonyMarkers...)])
		return len(t), false
	}
	h.add(false, t[pos:j])
	if m == hStart || m == hChannel {
		return j, true
	}
	return j + len(m), true
}

// header reads a message header from pos up to <|message|>, then the body.
func (h *harmonyScan) header(pos int) (int, bool) {
	s, t := h.s, h.s.text
	j, m := s.nextMarker(pos, hMessage, hStart, hEnd, hCall, hReturn)
	if j < 0 {
		if _, to, _ := parseHarmonyHeader(t[pos:]); to && s.final {
			s.call().fail(Unterminated, "unterminated Harmony call header (the output was cut off)")
		}
		return len(t), false
	}
	rcpt, to, channel := parseHarmonyHeader(t[pos:j])
	if m != hMessage {
		if to {
			s.call().fail(Malformed, "Harmony message to=%s without %s", rcpt, hMessage)
		}
		if m == hStart {
			return j, true
		}
		return j + len(m), true
	}
	return h.body(j+len(hMessage), rcpt, to, channel)
}

// parseHarmonyHeader returns the recipient after "to=" and the channel.
func parseHarmonyHeader(hdr string) (rcpt string, to bool, channel string) {
	if k := strings.Index(hdr, "to="); k >= 0 {
		rcpt, to = hdr[k+3:], true
		if end := strings.IndexAny(rcpt, " \t\n<"); end >= 0 {
			rcpt = rcpt[:end]
		}
	}
	if k := strings.Index(hdr, hChannel); k >= 0 {
		channel = hdr[k+len(hChannel):]
		end := 0
		for end < len(channel) && isIdentChar(channel[end], false) {
			end++
		}
		channel = channel[:end]
	}
	return rcpt, to, channel
}

// body reads a message body from pos to its end marker.
func (h *harmonyScan) body(pos int, rcpt string, to bool, channel string) (int, bool) {
	s, t := h.s, h.s.text
	j, m := s.nextMarker(pos, hEnd, hCall, hReturn, hStart)
	end, next := j, j+len(m)
	if m == hStart {
		next = j
	}
	if j < 0 {
		end, next = s.upTo(pos, harmonyMarkers...), len(t)
	}
	body := t[pos:end]
	if !to {
		h.add(channel == "analysis", body)
		return next, j >= 0
	}
	c := s.call()
	c.name = strings.TrimPrefix(rcpt, "functions.")
	c.nameOK, c.idOK, c.args = c.name != "", true, body
	switch {
	case j >= 0:
		c.done = true
	case !s.final:
		return len(t), false
	default:
		c.done = !cutJSON(body)
		if !c.done {
			c.fail(Unterminated, "unterminated call of %s (the output was cut off)", c.name)
		}
	}
	return next, j >= 0
}

// cutJSON reports whether text is JSON cut off by its end.
func cutJSON(text string) bool {
	end, st := scanJSON(text, 0)
	return st == jsonMore && end == len(text) && (trimSpace(text) == "" || strings.ContainsAny(text, "{[\""))
}

// add adds the body of a content or reasoning message, after a blank line
// when an earlier message of its kind had text.
func (h *harmonyScan) add(reasoning bool, body string) {
	seen := &h.content
	add := h.s.content
	if reasoning {
		seen, add = &h.reasoning, h.s.reasoning
	}
	if trimSpace(body) == "" {
		add(body)
		return
	}
	if *seen {
		add("\n\n")
	}
	*seen = true
	add(body)
}
