package window

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// Compact summarizes the old turns now (Request calls it above the
// trigger). It keeps verbatim the system message, which holds the system
// prompt and the instruction files, and the newest turns worth about
// KeepRecent tokens (always the last turn); the turns before become one
// summary message. It cuts at a user message, or at an assistant message
// when the turn has no user message to cut at or is too long (CutAt),
// never at a tool result. Stale results in the kept part become stubs (StubStale); the
// file lists carry over. If the history still does not fit, a hard reset
// keeps the task (the first user message) and the summary.
func (m *Manager) Compact(ctx context.Context) (Compaction, error) {
	c := Compaction{Before: m.Total()}
	fixed := m.fixed()
	cut := m.cut()
	if cut == fixed+1 && m.summary != nil && isSame(m.history[fixed], *m.summary) {
		cut = 0 // only the last summary is old: nothing new to summarize
	}
	if cut > fixed {
		old := m.history[fixed:cut]
		summary, err := m.summarize(ctx, old)
		if err != nil {
			return c, err
		}
		kept, stubbed := StubStale(m.history[cut:], m.cfg.Classify)
		c.Removed, c.Stubbed = len(old), stubbed
		m.history = append(append(slices.Clone(m.history[:fixed]), summary), kept...)
		m.summary = &summary
	}
	if m.Total()+m.cfg.Reserve > m.cfg.Window {
		m.reset()
		c.Reset = true
	}
	c.After = m.Total()
	if err := m.repair(); err != nil {
		return c, &Error{Op: "compact", Err: err}
	}
	return c, nil
}

// cut chooses where the kept part starts: at a user message, unless
// there is none to cut at or the turn it keeps is over twice KeepRecent
// (one long turn of `loop run`), then at an assistant message.
func (m *Manager) cut() int {
	at := m.cutPoint(m.cfg.CutAt)
	if m.cfg.CutAt == AtUser && (at <= m.fixed() || m.tokensFrom(at) > 2*m.cfg.KeepRecent) {
		if a := m.cutPoint(AtAssistant); a > m.fixed() {
			return a
		}
	}
	return at
}

// tokensFrom is the tokens of the messages from index i on.
func (m *Manager) tokensFrom(i int) int {
	n := 0
	for _, msg := range m.history[i:] {
		n += m.tokens(msg)
	}
	return n
}

func isSame(a, b chat.Message) bool { return a.Role == b.Role && a.Content == b.Content }

// cutPoint walks back from the newest message, adding up tokens, and
// returns the index of the last place where cut allows a history to
// start, once the kept part reaches KeepRecent; at most fixed() when
// there is nothing to cut.
func (m *Manager) cutPoint(cut CutAt) int {
	at, kept := len(m.history), 0
	for i := len(m.history) - 1; i > m.fixed(); i-- {
		kept += m.tokens(m.history[i])
		if cut.CanCut(m.history[i]) {
			at = i
		}
		if kept >= m.cfg.KeepRecent && at < len(m.history) {
			break
		}
	}
	if at == len(m.history) {
		return 0
	}
	return at
}

// summarize records the old turns' files and asks for their summary.
func (m *Manager) summarize(ctx context.Context, old []chat.Message) (chat.Message, error) {
	m.files = m.files.Add(old, m.cfg.Classify)
	if m.cfg.Summarize == nil {
		note := fmt.Sprintf("%d earlier messages were removed to fit the context window. Files read: %s. Files modified: %s.",
			len(old), listOrNone(m.files.Read), listOrNone(m.files.Modified))
		return SummaryMessage(note, m.cfg.BareSummary), nil
	}
	req := SummaryRequest{Transcript: Transcript(old, m.cfg.TranscriptChars), Files: m.files}
	if m.cfg.Todos != nil {
		req.Todos = m.cfg.Todos()
	}
	text, err := m.cfg.Summarize(ctx, req.Prompt())
	if err != nil {
		return chat.Message{}, &Error{Op: "compact", Err: fmt.Errorf("%w: %w", ErrSummary, err)}
	}
	return SummaryMessage(text, m.cfg.BareSummary), nil
}

// reset keeps the system message, then the task and the summary in one
// user message: the safety net when the kept turns alone are too big.
func (m *Manager) reset() {
	out := slices.Clone(m.history[:m.fixed()])
	var text string
	if m.task != nil {
		text = m.task.Text()
	}
	if m.summary != nil {
		text = strings.TrimPrefix(text+"\n\n"+m.summary.Content, "\n\n")
	}
	if text != "" {
		out = append(out, chat.Message{Role: "user", Content: text})
	}
	m.history = out
}

// repair rebuilds the pair state from the history and validates it.
func (m *Manager) repair() error {
	m.pairs = pairState{}
	for i, msg := range m.history {
		if err := m.pairs.add(i, msg); err != nil {
			return err
		}
	}
	return nil
}
