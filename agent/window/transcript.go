package window

import (
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
)

// TranscriptResultChars is how much of each tool result the summarizer
// reads, as Pi cuts it (TOOL_RESULT_MAX_CHARS): the summary needs to know
// what was done, not every line that was read.
const TranscriptResultChars = 2000

// Transcript writes messages as the plain text that the summarizer reads,
// one message a line with a role label, as Pi serializes them:
//
//	[User]: Add a findAll method to OrderService and make the tests pass.
//	[Assistant tool calls]: read({"path":"src/OrderService.java"})
//	[Tool result]: public class OrderService { ... [600 chars cut]
//	[Assistant]: Done.
//
// A plain transcript keeps the model from treating the old turns as a
// conversation to continue. Tool results are cut to maxResult characters
// (TranscriptResultChars when 0); reasoning is left out.
func Transcript(msgs []chat.Message, maxResult int) string {
	if maxResult == 0 {
		maxResult = TranscriptResultChars
	}
	var sb strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case "system":
			line(&sb, "[System]: ", m.Text())
		case "user":
			line(&sb, "[User]: ", m.Text())
		case "assistant":
			if m.Text() != "" || len(m.ToolCalls) == 0 {
				line(&sb, "[Assistant]: ", m.Text())
			}
			if len(m.ToolCalls) > 0 {
				calls := make([]string, len(m.ToolCalls))
				for i, c := range m.ToolCalls {
					calls[i] = c.Function.Name + "(" + c.Function.Arguments + ")"
				}
				line(&sb, "[Assistant tool calls]: ", strings.Join(calls, "; "))
			}
		case "tool":
			line(&sb, "[Tool result]: ", cutResult(m.Text(), maxResult))
		}
	}
	return sb.String()
}

func line(sb *strings.Builder, label, text string) {
	sb.WriteString(label)
	sb.WriteString(text)
	sb.WriteByte('\n')
}

// cutResult keeps the first max characters with a marker after them.
func cutResult(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	return firstRunes(s, max) + " " + charMarker(n-max)
}
