package callformat

import "github.com/loopagent/loop/agent/chat"

// ProblemKind classifies what a parser found wrong in the model's text.
type ProblemKind string

// The problems a parser reports.
const (
	// Unterminated: a call was opened and not closed; the output was cut.
	Unterminated ProblemKind = "unterminated"
	// InvalidJSON: a call's JSON does not parse.
	InvalidJSON ProblemKind = "invalid_json"
	// NoName: a call without a "name" string.
	NoName ProblemKind = "no_name"
	// ArgsNotObject: arguments that are not a JSON object.
	ArgsNotObject ProblemKind = "arguments_not_object"
	// OutsideFormat: something that looks like a call but is not in the
	// format (a fenced JSON block without tags); the agent can answer with
	// a reminder of the format.
	OutsideFormat ProblemKind = "outside_format"
)

// Problem is one thing a parser found wrong.
type Problem struct {
	Kind    ProblemKind `json:"kind"`
	Message string      `json:"message"`
}

func (p Problem) String() string { return p.Message }

// Parsed is what a format's parser reads out of a model's output.
type Parsed struct {
	// Content is the text outside calls and reasoning, trimmed.
	Content string `json:"content"`
	// Reasoning is the model's reasoning (<think>, Harmony's analysis).
	Reasoning string `json:"reasoning,omitempty"`
	// Calls are the complete calls, arguments as compact JSON text. IDs
	// are the model's where the format has them (Mistral), else empty:
	// the caller assigns them with the format's IDs.
	Calls []chat.ToolCall `json:"calls"`
	// Problems lists what could not be parsed; never a panic.
	Problems []Problem `json:"problems,omitempty"`
}

// CallDelta is a piece of a streamed call: the first piece of a call has
// its Index, ID and Name; later pieces carry fragments of Arguments.
type CallDelta struct {
	Index     int    `json:"index"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// Delta is what a streaming parser emits for a piece of text.
type Delta struct {
	Content   string     `json:"content,omitempty"`
	Reasoning string     `json:"reasoning,omitempty"`
	Call      *CallDelta `json:"call,omitempty"`
}
