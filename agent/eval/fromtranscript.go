package eval

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
)

// FromTranscript turns the first run of a `loop run` transcript into a
// scripted scenario: the task, the workspace directory it ran in (copied
// into each run's workspace as it is now: revert the run's own changes
// first), the model's raw outputs up to the run's outcome as replies, and
// a pass condition: the check command when the run's gate detected or
// was given one (it must pass after the run), else the run's final
// answer, quoted as a regular expression. The format is left to the
// caller (hermes when unset), since a transcript does not record it.
func FromTranscript(events []transcript.Event) (*Scenario, error) {
	s := &Scenario{}
	var answer string
	for _, e := range events {
		switch e.Kind {
		case transcript.KindTask:
			if s.Task != "" {
				continue
			}
			s.Task, s.Workspace, s.Check = e.Task, e.Workspace, e.Detail
		case transcript.KindReply:
			var u model.Usage
			json.Unmarshal(e.Usage, &u) // a reply without usage counts none
			s.Replies = append(s.Replies, model.Reply{Text: e.Text, FinishReason: e.FinishReason, PromptTokens: u.PromptTokens})
			if len(e.Calls) == 0 {
				answer = e.Text
			}
		}
		if e.Kind == transcript.KindOutcome && s.Task != "" {
			break
		}
	}
	switch {
	case s.Task == "":
		return nil, &Error{Op: "from transcript", Err: fmt.Errorf("%w: no task event", ErrInvalid)}
	case len(s.Replies) == 0:
		return nil, &Error{Op: "from transcript", Subject: s.Task, Err: fmt.Errorf("%w: no model replies", ErrInvalid)}
	}
	s.Name = s.Task
	if len(s.Name) > 40 {
		s.Name = s.Name[:40]
	}
	s.MaxSteps = len(s.Replies)
	if s.Check != "" {
		s.Pass.Check = s.Check
	} else if a := firstLine(answer); a != "" {
		s.Pass.Answer = regexp.QuoteMeta(a)
	}
	return s, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
