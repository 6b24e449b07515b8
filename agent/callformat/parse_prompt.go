package callformat

// The prompt-based format, for models whose
// template has no tool support: the agent's system prompt asks for one
// JSON object per reply,
//
//	{"tool": "read_file", "arguments": {"path": "pom.xml"}}   a call
//	{"answer": "pom.xml declares the project demo."}           the answer
//
// The object is the first JSON object in the reply: prose and code fences
// around it are tolerated and dropped. (The seed takes the text from the
// first { to the last }; reading one value from the first { gives the
// seed's five outcomes and decides as the text streams.) Whichever of
// "tool" and "answer" comes first decides; the seed prefers "tool". A
// reply without an object is content, with an OutsideFormat problem; an
// object that does not parse, or that the output cuts off, is InvalidJSON,
// and an answer's text as far as it parsed is still content.

func scanPrompt(_ *format, s *scanState) {
	t := s.text
	i := s.indexAt(0, "{")
	if i < 0 {
		if s.final {
			s.content(t)
			s.problem(OutsideFormat, "no JSON object in the reply")
		}
		return
	}
	ms, _, st := s.memo.scanObject(t, i)
	m := firstMember(ms, "tool", "answer")
	switch {
	case m != nil && m.key == "tool":
		c := s.call()
		c.idOK = true
		c.name, c.nameOK, _ = memberString(t, m)
		am := firstMember(ms, "arguments")
		c.args, c.encoded = s.memo.memberArgs(t, am)
		if st == jsonDone {
			c.finish(am != nil)
			return
		}
		if p := promptProblem(s, t[i:], st); p != nil {
			c.problem = p
		}
		return
	case m != nil:
		if m.val >= 0 && t[m.val] == '"' {
			s.content(s.memo.decodeString(t, m.val, m.end))
		} else if st == jsonDone || m.val >= 0 && m.st != jsonMore {
			s.problem(OutsideFormat, `"answer" is not a string`)
			return
		}
	case st == jsonDone:
		s.problem(OutsideFormat, `the object has neither "tool" nor "answer"`)
		return
	}
	if p := promptProblem(s, t[i:], st); p != nil {
		s.items = append(s.items, item{kind: kindProblem, problem: *p})
	}
}

// promptProblem is the problem of an object that does not parse.
func promptProblem(s *scanState, obj string, st jsonStatus) *Problem {
	switch {
	case st == jsonBad:
		return &Problem{Kind: InvalidJSON, Message: "invalid JSON: " + jsonError(obj)}
	case st == jsonMore && s.final:
		return &Problem{Kind: InvalidJSON, Message: "invalid JSON: the object is not closed (the output was cut off)"}
	}
	return nil
}
