package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// ErrScriptEnd is returned by a Script asked for more replies than it has.
var ErrScriptEnd = errors.New("script: no reply left")

// Reply is one text a scripted model "wrote".
type Reply struct {
	Text string `json:"text"`
	// FinishReason, when set, is reported as it is. Otherwise it is
	// "length" when the text ends inside a call (the parser finds it
	// unterminated: a reply cut by the token limit), "tool_calls" when it
	// holds calls, and "stop" else.
	FinishReason string `json:"finish_reason,omitempty"`
	// PromptTokens, when set, is reported as the reply's
	// Usage.PromptTokens: what the server counted for a reply kept from
	// a transcript.
	PromptTokens int `json:"prompt_tokens,omitempty"`
}

// Branch switches a script to other replies the first time the newest
// message of a request contains When: a scripted model that "reads" a
// note (a loop warning, a request to run the tests) and changes course.
type Branch struct {
	When    string  `json:"when"`
	Replies []Reply `json:"replies"`
}

// Script is a Model that replays replies in order, one per request, through
// the stream parser and validator of a call format, as the in-process
// client runs them. It is not safe for concurrent use.
type Script struct {
	format   string
	replies  []Reply
	branches []Branch
	taken    []bool
	next     int
	rand     *rand.Rand
	requests int
}

// NewScript returns a script of replies in the named call format
// (callformat.Names), with optional branches.
func NewScript(format string, replies []Reply, branches ...Branch) (*Script, error) {
	if _, err := callformat.New(format, nil); err != nil {
		return nil, err
	}
	return &Script{format: format, replies: replies, branches: branches, taken: make([]bool, len(branches)),
		rand: rand.New(rand.NewPCG(1, 2))}, nil
}

// ParseScript reads a script file: a JSON array of strings or Reply
// objects, or an object {"replies": [...], "branches": [...]}.
func ParseScript(data []byte) ([]Reply, []Branch, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var s struct {
			Replies  []json.RawMessage `json:"replies"`
			Branches []struct {
				When    string            `json:"when"`
				Replies []json.RawMessage `json:"replies"`
			} `json:"branches"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, nil, fmt.Errorf("script: %w", err)
		}
		replies, err := parseReplies(s.Replies)
		var branches []Branch
		for _, b := range s.Branches {
			rs, berr := parseReplies(b.Replies)
			err = errors.Join(err, berr)
			branches = append(branches, Branch{When: b.When, Replies: rs})
		}
		return replies, branches, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, fmt.Errorf("script: want a JSON array of replies: %w", err)
	}
	replies, err := parseReplies(raw)
	return replies, nil, err
}

func parseReplies(raw []json.RawMessage) ([]Reply, error) {
	out := make([]Reply, 0, len(raw))
	for i, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, Reply{Text: s})
			continue
		}
		var rep Reply
		if err := json.Unmarshal(r, &rep); err != nil {
			return nil, fmt.Errorf("script: reply %d is neither a string nor {\"text\": ...}: %w", i, err)
		}
		out = append(out, rep)
	}
	return out, nil
}

// Requests returns how many requests the script has answered.
func (s *Script) Requests() int { return s.requests }

// Complete returns the next reply, parsed and validated for req's tools.
func (s *Script) Complete(ctx context.Context, req Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.branch(req.Messages)
	if s.next >= len(s.replies) {
		return nil, fmt.Errorf("%w after %d requests", ErrScriptEnd, s.requests)
	}
	// A script has no model keys: its sampling resolves over llama.cpp's
	// defaults alone, so that its transcript shows what a model without
	// keys would run with.
	sampling, err := req.Sampling.Resolve(nil)
	if err != nil {
		return nil, err
	}
	reply := s.replies[s.next]
	s.next++
	s.requests++
	if req.OnStart != nil {
		req.OnStart(Start{Format: s.format, Sampling: sampling})
	}
	noCalls := len(req.Tools) == 0 || req.ToolChoice.Mode == grammar.ChoiceNone
	f, err := callformat.NewWithOptions(s.format, req.Tools, callformat.Options{Rand: s.rand, NoCalls: noCalls})
	if err != nil {
		return nil, err
	}
	parsed := stream(f.Stream(), reply.Text, req.OnDelta)
	resp := &Response{Text: reply.Text, Parsed: parsed, Format: s.format, Calls: f, FinishReason: reply.FinishReason, Sampling: sampling,
		Message: chat.Message{Role: "assistant", Content: parsed.Content, ReasoningContent: parsed.Reasoning, ToolCalls: parsed.Calls},
	}
	resp.Usage.PromptTokens = reply.PromptTokens
	if resp.FinishReason == "" {
		resp.FinishReason = finishOf(parsed)
	}
	if !noCalls && len(parsed.Calls) > 0 {
		v, err := validate.New(req.Tools)
		if err != nil {
			return nil, err
		}
		resp.Violations = v.Validate(validate.Reply{FinishReason: resp.FinishReason, Calls: parsed.Calls})
	}
	return resp, nil
}

// branch switches to the first branch, not taken yet, whose text the
// newest message contains.
func (s *Script) branch(msgs []chat.Message) {
	if len(msgs) == 0 {
		return
	}
	last := msgs[len(msgs)-1].Text()
	for i, b := range s.branches {
		if !s.taken[i] && b.When != "" && strings.Contains(last, b.When) {
			s.taken[i] = true
			s.replies, s.next = b.Replies, 0
			return
		}
	}
}

// stream feeds text to the parser in small pieces, as a model writes it,
// and returns the parse.
func stream(p callformat.StreamParser, text string, onDelta func(callformat.Delta)) callformat.Parsed {
	const piece = 8
	for i := 0; i < len(text); {
		j := min(i+piece, len(text))
		for j < len(text) && !utf8.RuneStart(text[j]) {
			j++ // whole characters, as a model's pieces are once decoded
		}
		for _, d := range p.Feed(text[i:j]) {
			if onDelta != nil {
				onDelta(d)
			}
		}
		i = j
	}
	return p.Finish()
}

func finishOf(p callformat.Parsed) string {
	for _, pr := range p.Problems {
		if pr.Kind == callformat.Unterminated {
			return "length"
		}
	}
	if len(p.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}
