package callformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// Accumulator joins the chunks of a streamed chat completion, as an
// OpenAI client does: content and reasoning are
// appended, and the pieces of each call are joined by index, not id: the
// id, type and name come in the first piece, fragments of the arguments
// in all of them. The arguments are valid JSON only once the stream has
// ended, so Done does not parse them. Only choice 0 is accumulated.
//
// The zero value is ready to use. An Accumulator is not safe for
// concurrent use.
type Accumulator struct {
	chunks    int
	finish    string
	done      bool
	content   strings.Builder
	reasoning strings.Builder
	calls     map[int]*StreamedCall
}

// Accumulated is what a stream added up to.
type Accumulated struct {
	Chunks       int    // chunks added before [DONE]
	FinishReason string // "stop", "tool_calls", "length", or "" if none came
	Done         bool   // [DONE] was seen
	Content      string
	Reasoning    string
	Calls        []StreamedCall // by index
}

// StreamedCall is one call joined from its pieces.
type StreamedCall struct {
	Index     int
	ID        string
	Type      string
	Name      string
	Pieces    int    // pieces that carried arguments
	Arguments string // the pieces joined; JSON once the stream has ended
}

// chunk is the part of a chat.completion.chunk the accumulator reads.
type chunk struct {
	Choices []struct {
		Index        int     `json:"index"`
		FinishReason *string `json:"finish_reason"`
		Delta        struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string  `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
}

// Add adds one chunk: the JSON of one "data:" line of the event stream.
// The line [DONE] ends the stream and is not counted.
func (a *Accumulator) Add(data []byte) error {
	if strings.TrimSpace(string(data)) == "[DONE]" {
		a.done = true
		return nil
	}
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return &chat.Error{Op: "accumulate chunk", Subject: fmt.Sprintf("chunk %d", a.chunks+1), Err: err}
	}
	a.chunks++
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			return &chat.Error{Op: "accumulate chunk", Subject: fmt.Sprintf("chunk %d", a.chunks), Err: errors.New("only choice 0 is accumulated")}
		}
		if ch.FinishReason != nil {
			a.finish = *ch.FinishReason
		}
		d := ch.Delta
		if d.Content != nil {
			a.content.WriteString(*d.Content)
		}
		if d.ReasoningContent != nil {
			a.reasoning.WriteString(*d.ReasoningContent)
		}
		for _, tc := range d.ToolCalls {
			a.addCall(tc.Index, tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments)
		}
	}
	return nil
}

func (a *Accumulator) addCall(index int, id, typ, name string, args *string) {
	if a.calls == nil {
		a.calls = map[int]*StreamedCall{}
	}
	c := a.calls[index]
	if c == nil {
		c = &StreamedCall{Index: index}
		a.calls[index] = c
	}
	if id != "" {
		c.ID = id
	}
	if typ != "" {
		c.Type = typ
	}
	if name != "" {
		c.Name = name
	}
	if args != nil {
		c.Arguments += *args
		c.Pieces++
	}
}

// Ended reports whether the stream's data: [DONE] was added.
func (a *Accumulator) Ended() bool { return a.done }

// Done returns what the chunks added up to so far.
func (a *Accumulator) Done() Accumulated {
	r := Accumulated{Chunks: a.chunks, FinishReason: a.finish, Done: a.done,
		Content: a.content.String(), Reasoning: a.reasoning.String()}
	for _, c := range a.calls {
		r.Calls = append(r.Calls, *c)
	}
	slices.SortFunc(r.Calls, func(x, y StreamedCall) int { return x.Index - y.Index })
	return r
}

// ToolCalls returns the calls as an assistant message carries them.
func (r Accumulated) ToolCalls() []chat.ToolCall {
	var out []chat.ToolCall
	for _, c := range r.Calls {
		typ := c.Type
		if typ == "" {
			typ = "function"
		}
		out = append(out, chat.ToolCall{ID: c.ID, Type: typ, Function: chat.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	return out
}

// ChunkJSON returns the chat.completion.chunk "choices" of one delta, as
// llama-server streams it: a call's first piece carries its id, type and
// name. finishReason, when not empty, ends the choice. It is the inverse
// of Accumulator.Add for a server that streams a StreamParser's deltas.
func ChunkJSON(d Delta, finishReason string) []byte {
	type function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	type toolCall struct {
		Index    int      `json:"index"`
		ID       string   `json:"id,omitempty"`
		Type     string   `json:"type,omitempty"`
		Function function `json:"function"`
	}
	delta := map[string]any{}
	if d.Content != "" {
		delta["content"] = d.Content
	}
	if d.Reasoning != "" {
		delta["reasoning_content"] = d.Reasoning
	}
	if c := d.Call; c != nil {
		tc := toolCall{Index: c.Index, ID: c.ID, Function: function{Name: c.Name, Arguments: c.Arguments}}
		if c.ID != "" {
			tc.Type = "function"
		}
		delta["tool_calls"] = []toolCall{tc}
	}
	var finish *string
	if finishReason != "" {
		finish = &finishReason
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"choices": []map[string]any{{"index": 0, "finish_reason": finish, "delta": delta}}})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
