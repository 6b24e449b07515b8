package window

import (
	"context"
	"fmt"
	"slices"

	"github.com/loopagent/loop/agent/chat"
)

// Config configures a Manager. The zero value of every field means the
// default on its comment; only System is needed.
type Config struct {
	// Off keeps the history only: no cap on entry, no compaction, no
	// check that the prompt fits; the pairs are still checked. The model
	// then refuses a prompt that does not fit.
	Off bool
	// Window is the context window in tokens; 0 means 8,192.
	Window int
	// System is the system message: system prompt, instruction files and
	// repository map, fixed for the session and always sent verbatim.
	System chat.Message
	// Fixed is the tokens of the fixed parts outside the history, the
	// tool definitions as the template renders them.
	Fixed int
	// Counter counts text; nil means Estimate{}.
	Counter Counter
	// Overhead is the template's tokens around each message; 0 means 4,
	// negative means none.
	Overhead int
	// Measure, when set, gives the exact prompt tokens of a history, the
	// tools and fixed parts included (the template rendered and
	// tokenized). The trigger and the fit check then use it; MessageTokens
	// still chooses where a compaction cuts.
	Measure func(msgs []chat.Message) int
	// Reserve is kept for the reply; 0 means ReserveFor(Window).
	Reserve int
	// CompactAt is the trigger; 0 means ScaledTrigger(Window).
	CompactAt int
	// KeepRecent is the history kept verbatim by a compaction, in tokens;
	// 0 means Window / 4.
	KeepRecent int
	// ToolCap caps each tool result on entry, in characters; 0 means
	// Plan(Window).ToolCap, negative means no cap.
	ToolCap int
	// Policies, CapWithin and Errors are the cap's Caps.Policies,
	// Caps.Within and Caps.Errors.
	Policies  map[string]Policy
	CapWithin bool
	Errors    ErrorFilter
	// CutAt is where a compaction may cut. With AtUser (the default), a
	// turn with no user message to cut at falls back to AtAssistant.
	CutAt CutAt
	// Classify tells reads, writes and commands apart, for stale results
	// and file lists; nil means DefaultClassify.
	Classify Classifier
	// Summarize writes summaries; nil drops old turns with a note instead.
	Summarize Summarizer
	// BareSummary leaves SummaryPrefix out of the summary message.
	BareSummary bool
	// Todos returns the current todo list for the summary prompt; nil
	// means none.
	Todos func() string
	// TranscriptChars cuts tool results in the summarizer's transcript; 0
	// means TranscriptResultChars.
	TranscriptChars int
	// Pinned is the number of messages after the system message that are
	// fixed for the session (few-shot examples): like the system message,
	// a compaction keeps them verbatim and never cuts among them.
	Pinned int
}

// Manager owns an agent's history between the loop and the model: it caps
// tool results when they are added, checks the call/result pairs after
// every change and before every request, and compacts when the prompt
// passes the trigger. Between compactions the history only grows at its
// end, so each prompt extends the last one and the engine reuses its KV
// cache. A Manager is not safe for concurrent use.
type Manager struct {
	cfg     Config
	history []chat.Message
	pairs   pairState
	files   FileLists
	task    *chat.Message // the first user message
	summary *chat.Message // the last summary message
}

// Compaction reports one compaction.
type Compaction struct {
	// Removed is the number of messages summarized away.
	Removed int
	// Stubbed is the number of stale results replaced by stubs.
	Stubbed int
	// Before and After are the prompt tokens.
	Before, After int
	// Reset says the history still did not fit and was reset to the task
	// and the summary.
	Reset bool
}

// Request is what goes to the model.
type Request struct {
	// Messages is the history to send, a copy.
	Messages []chat.Message
	// Tokens is the prompt's size.
	Tokens int
	// Compaction is the compaction done before this request, or nil.
	Compaction *Compaction
}

// New returns a manager whose history holds the system message.
func New(cfg Config) *Manager {
	if cfg.Window == 0 {
		cfg.Window = 8192
	}
	plan := Plan(cfg.Window)
	if cfg.Counter == nil {
		cfg.Counter = Estimate{}
	}
	switch {
	case cfg.Overhead == 0:
		cfg.Overhead = 4
	case cfg.Overhead < 0:
		cfg.Overhead = 0
	}
	cfg.Reserve = orDefault(cfg.Reserve, plan.Reserve)
	cfg.CompactAt = orDefault(cfg.CompactAt, plan.CompactAt)
	cfg.KeepRecent = orDefault(cfg.KeepRecent, plan.KeepRecent)
	cfg.ToolCap = orDefault(cfg.ToolCap, plan.ToolCap)
	if cfg.Classify == nil {
		cfg.Classify = DefaultClassify
	}
	return &Manager{cfg: cfg, history: []chat.Message{cfg.System}}
}

// fixed is the number of leading messages a compaction keeps verbatim:
// the system message and the pinned ones.
func (m *Manager) fixed() int { return 1 + m.cfg.Pinned }

// Cap is the cap on entry of a tool result of the tool named tool
// (Caps.Apply with the manager's settings): what the history may hold of
// it. failed says its command failed, so that its output is cut to its
// error lines.
func (m *Manager) Cap(tool, text string, failed bool) string {
	if m.cfg.Off || m.cfg.ToolCap <= 0 {
		return text
	}
	caps := Caps{Chars: m.cfg.ToolCap, Policies: m.cfg.Policies, Within: m.cfg.CapWithin, Errors: m.cfg.Errors}
	return caps.Apply(tool, text, failed)
}

// Append appends a message as it is: a tool result the caller has
// capped already (Cap), before it added a note of its own. A message that
// breaks the call/result pairs is refused.
func (m *Manager) Append(msg chat.Message) error {
	if err := m.pairs.add(len(m.history), msg); err != nil {
		return &Error{Op: "append", Subject: fmt.Sprintf("message %d", len(m.history)), Err: err}
	}
	if msg.Role == "user" && m.task == nil {
		task := msg
		m.task = &task
	}
	m.history = append(m.history, msg)
	return nil
}

// Remove takes the messages from index from up to to out of the history
// (the system message is index 0, and it and the pinned messages stay),
// as an agent does with failed attempts once a corrected call ran. The
// pairs must hold afterwards.
func (m *Manager) Remove(from, to int) error {
	if from < m.fixed() || to > len(m.history) || from > to {
		return &Error{Op: "remove", Subject: fmt.Sprintf("messages %d to %d of %d", from, to, len(m.history)),
			Err: fmt.Errorf("want a range after the %d fixed messages", m.fixed())}
	}
	keep := slices.Delete(slices.Clone(m.history), from, to)
	old := m.history
	m.history = keep
	if err := m.repair(); err != nil {
		m.history = old
		m.repair()
		return &Error{Op: "remove", Err: err}
	}
	return nil
}

// Len is the number of messages in the history, the system message and
// the pinned ones included.
func (m *Manager) Len() int { return len(m.history) }

// Request validates the pairs, compacts when the prompt passes the
// trigger, and checks that the prompt plus the reserve fits in the window.
// It returns a copy of the history to send.
func (m *Manager) Request(ctx context.Context) (Request, error) {
	if err := ValidatePairs(m.history); err != nil {
		return Request{}, &Error{Op: "request", Err: err}
	}
	var req Request
	if m.cfg.Off {
		req.Messages = slices.Clone(m.history)
		return req, nil
	}
	req.Tokens = m.Total()
	if req.Tokens > m.cfg.CompactAt {
		c, err := m.Compact(ctx)
		if err != nil {
			return Request{}, err
		}
		if c.Removed > 0 || c.Reset {
			req.Compaction = &c
		}
		req.Tokens = c.After
	}
	if req.Tokens+m.cfg.Reserve > m.cfg.Window {
		return Request{}, &Error{Op: "request", Subject: m.overflow(req.Tokens), Err: ErrContextFull}
	}
	req.Messages = slices.Clone(m.history)
	return req, nil
}

func (m *Manager) overflow(tokens int) string {
	return fmt.Sprintf("%d prompt tokens + %d reserved > %d", tokens, m.cfg.Reserve, m.cfg.Window)
}

// Total is the prompt's size in tokens: Measure, or the messages'
// MessageTokens plus Fixed.
func (m *Manager) Total() int {
	if m.cfg.Measure != nil {
		return m.cfg.Measure(m.history)
	}
	n := m.cfg.Fixed
	for _, msg := range m.history {
		n += m.tokens(msg)
	}
	return n
}

func (m *Manager) tokens(msg chat.Message) int {
	return MessageTokens(m.cfg.Counter, m.cfg.Overhead, msg)
}

// History returns a copy of the history.
func (m *Manager) History() []chat.Message { return slices.Clone(m.history) }
