// Package transcript records what an agent run does as events, one JSON
// object per line: the task, every request and raw reply, the parsed
// calls, repairs, tool results, classifications, notes and the outcome.
// The terminal view and `loop run --json` are two renderings of the same
// events, so what a user saw is what the transcript holds.
//
// A Writer writes events to a new file and syncs it after each one, so
// that a crash or a Ctrl-C loses nothing that happened before it. Create
// refuses a file that exists: one file holds one run's events, never two
// runs' lines interleaved:
//
//	w, err := transcript.Create("run.jsonl")
//	defer w.Close()
//	w.Emit(transcript.Event{Kind: transcript.KindTask, Task: "fix the test"})
//
// Read reads a transcript back; Replies gives its raw model outputs, which
// `loop replay` runs again through today's parser and loop, and
// Conversation the conversation its history events hold, from which a
// continued session starts (agent/session).
package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
)

// Kinds of events.
const (
	KindTask     = "task"     // the run starts: task, workspace, model, settings
	KindRequest  = "request"  // a request goes to the model
	KindReply    = "reply"    // the model's raw output, finish reason, usage
	KindRepair   = "repair"   // a reply was repaired or a call recovered
	KindRejected = "rejected" // a reply was not used: why, and what goes back
	KindCall     = "call"     // a call is about to run
	KindResult   = "result"   // a tool's result
	KindNote     = "note"     // the agent's own message to the model (loop note, verification request)
	KindClass    = "class"    // the classifier's label of a step
	KindOutcome  = "outcome"  // the run ends
	KindTiming   = "timing"   // where a step's time went
	KindCompact  = "compact"  // the context manager compacted the history
	KindHistory  = "history"  // the conversation changed: the messages from From on
	KindSession  = "session"  // the run belongs to a session: its id, and what its start restored
)

// Event is one thing that happened in a run. Only the fields of its kind
// are set.
type Event struct {
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	Step int       `json:"step,omitempty"`

	Task      string          `json:"task,omitempty"`
	Workspace string          `json:"workspace,omitempty"`
	Model     string          `json:"model,omitempty"`
	Settings  json.RawMessage `json:"settings,omitempty"`

	ToolChoice string   `json:"tool_choice,omitempty"`
	Tools      []string `json:"tools,omitempty"`
	Messages   int      `json:"messages,omitempty"`
	// MaxTokens is the request's reply budget; Sampling the sampler
	// configuration the model resolved for it (model.Resolved); and
	// PromptTokens the size of its rendered prompt, when the model
	// counts.
	MaxTokens    int             `json:"max_tokens,omitempty"`
	Sampling     json.RawMessage `json:"sampling,omitempty"`
	PromptTokens int             `json:"prompt_tokens,omitempty"`
	// Digest is a SHA-256 of what the request asks (messages, tools,
	// tool choice, limits, sampling, format): equal digests, equal
	// requests.
	Digest string `json:"digest,omitempty"`

	Text         string               `json:"text,omitempty"`
	FinishReason string               `json:"finish_reason,omitempty"`
	Calls        []chat.ToolCall      `json:"calls,omitempty"`
	Problems     []callformat.Problem `json:"problems,omitempty"`
	Violations   []validate.Violation `json:"violations,omitempty"`
	Usage        json.RawMessage      `json:"usage,omitempty"`

	Repairs []string `json:"repairs,omitempty"`
	Reason  string   `json:"reason,omitempty"`

	Call    *chat.ToolCall `json:"call,omitempty"`
	Result  string         `json:"result,omitempty"`
	IsError bool           `json:"is_error,omitempty"`
	Ms      float64        `json:"ms,omitempty"`

	Timing *StepTiming `json:"timing,omitempty"`

	// History holds the conversation after the system prompt and the
	// few-shot examples from message From on, as it stands at the end of
	// a step: a JSON array of chat messages, kept as written so that a
	// null content stays null. Conversation rebuilds the conversation.
	History json.RawMessage `json:"history,omitempty"`
	From    int             `json:"from,omitempty"`
	// Session is the id of the session the run belongs to.
	Session string `json:"session,omitempty"`

	Class   string `json:"class,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// StepTiming is where one step's wall time went, in milliseconds: the
// model's prefill and generation, the client's own work on the request
// (render, tokenize, grammar, parse, validate: model.Usage.OverheadMs),
// the agent's check of the reply (repair, validation, count), the tools,
// and the rest of the agent's step (history, loop guard, gate, events).
type StepTiming struct {
	StepMs   float64 `json:"step_ms"`
	ModelMs  float64 `json:"model_ms"`
	ClientMs float64 `json:"client_ms"`
	CheckMs  float64 `json:"check_ms"`
	ToolsMs  float64 `json:"tools_ms"`
	OtherMs  float64 `json:"other_ms"`
}

// AgentMs is the harness's own time: everything but the model and the
// tools.
func (t StepTiming) AgentMs() float64 { return t.ClientMs + t.CheckMs + t.OtherMs }

// Sink receives events.
type Sink interface {
	Emit(Event)
}

// Multi sends each event to every sink.
type Multi []Sink

// Emit implements Sink.
func (m Multi) Emit(e Event) {
	for _, s := range m {
		if s != nil {
			s.Emit(e)
		}
	}
}

// Writer writes events as JSON lines. It is safe for concurrent use. A
// write error is kept and returned by Err and Close; the run goes on.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	file *os.File
	err  error
	now  func() time.Time
}

// NewWriter writes events to w, without syncing.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, now: time.Now} }

// Create creates the transcript file at path, which must not exist (not
// even as a symlink): it is opened with O_EXCL, so that two runs never
// share a file, and an existing file is an error wrapping fs.ErrExist. The
// Writer syncs the file after each event. The directory must exist.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return &Writer{w: f, file: f, now: time.Now}, nil
}

// Emit writes one event, stamping its time when unset.
func (w *Writer) Emit(e Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = w.now()
	}
	b, err := json.Marshal(e)
	if err == nil {
		_, err = w.w.Write(append(b, '\n'))
	}
	if err == nil && w.file != nil {
		err = w.file.Sync()
	}
	w.err = err
}

// Close closes the file of a Writer from Create. It returns the first
// write error, of any Writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.file == nil {
		return w.err
	}
	err := errors.Join(w.err, w.file.Close())
	w.file = nil
	return err
}

// Read reads the events of a transcript. A last line cut by a crash is
// ignored; any other bad line is an error naming its line number.
func Read(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	var pending error
	for n := 1; sc.Scan(); n++ {
		if pending != nil {
			return out, pending
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			pending = fmt.Errorf("transcript: line %d: %w", n, err)
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Conversation rebuilds the conversation from the history events of one
// or more runs in order: each replaces the messages from its From on. A
// From past the end, which no transcript of loop's writes, is an error.
func Conversation(events []Event) ([]chat.Message, error) {
	var msgs []chat.Message
	for _, e := range events {
		if e.Kind != KindHistory {
			continue
		}
		if e.From < 0 || e.From > len(msgs) {
			return nil, fmt.Errorf("transcript: a history event of step %d starts at message %d of %d", e.Step, e.From, len(msgs))
		}
		var added []chat.Message
		if len(e.History) > 0 {
			var err error
			if added, err = chat.ParseMessages(e.History); err != nil {
				return nil, fmt.Errorf("transcript: a history event of step %d: %w", e.Step, err)
			}
		}
		msgs = append(msgs[:e.From:e.From], added...)
	}
	return msgs, nil
}

// Replies returns the raw outputs of the model, in order, with their finish
// reasons: the script of a replay.
func Replies(events []Event) (texts, finish []string) {
	for _, e := range events {
		if e.Kind == KindReply {
			texts = append(texts, e.Text)
			finish = append(finish, e.FinishReason)
		}
	}
	return texts, finish
}
