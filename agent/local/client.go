package local

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
)

// Options configures New. The zero value uses the model's template, the
// format detected from it, and a 4096-token context.
type Options struct {
	// ContextSize is the KV cache size (0: 4096, capped at the trained
	// context).
	ContextSize int
	// Threads for generation and prompt processing (0: all CPUs).
	Threads int
	// FlashAttention is llama.ContextParams.FlashAttention ("": auto).
	FlashAttention string
	// ChatTemplate replaces the model's template (Jinja source), as
	// llama-server's --chat-template-file does.
	ChatTemplate string
	// Format names the call format instead of detecting it from the
	// template (one of callformat.Names).
	Format string
	// Subagents makes room for Sub: a second sequence in a unified KV
	// cache, so that a subagent gets the whole window while the parent's
	// sequence waits in host memory.
	Subagents bool
	// DraftMax, when positive, decodes speculatively, drafting up to
	// DraftMax tokens by prompt lookup (engine.Request.DraftMax): the
	// replies are the same, faster where they copy what the conversation
	// holds. 0 is off.
	DraftMax int
	// DraftInCalls drafts only inside tool calls, while the call grammar
	// is awake (engine.Request.DraftInCalls): their arguments copy most;
	// outside them, only from the request's AnswerSources.
	DraftInCalls bool
}

// Client completes chats on one model with one KV cache. It is not safe for
// concurrent use; the clients of one NewPool may be used concurrently,
// each by one goroutine.
type Client struct {
	model  *llama.Model
	ctx    *llama.Context
	slot   *llama.Slot
	parent *Client // of a Sub client
	saved  []byte  // the parent's sequence while a Sub client runs
	inSub  bool    // a Sub client of this one runs
	pool   *pool   // of a NewPool client
	closed bool    // a pooled client was closed

	// What the last request computed, for the next one: the prompt's
	// tokens and the tools' compiled validator.
	last          promptTokens
	lastToolsKey  string
	lastValidator *validate.Validator
	// and the call grammar, for the same format, tools and options.
	lastGrammarKey string
	lastGrammar    *grammar.CallGrammar
	subagents      bool
	tmpl           *chat.Template // default template
	toolTmpl       *chat.Template // tool_use variant, or tmpl
	detection      callformat.Detection
	thinking       bool // the template writes <think> blocks
	draftMax       int
	draftInCalls   bool
	pace           engine.Pace              // drafting's, from one request to the next
	sourceCache    map[string][]llama.Token // DraftSources' tokens, by format and text
	ids            *idSource                // call ids of requests without IDSeed (idRand)
	meta           map[string]string        // the model's general.sampling.* keys
}

// New makes a client over m. The template must render; the context must
// fit.
func New(m *llama.Model, opts Options) (*Client, error) {
	return newClient(m, opts, 1)
}

// newClient makes a client over a context of seqs sequences.
func newClient(m *llama.Model, opts Options, seqs int) (*Client, error) {
	c := &Client{model: m, draftMax: opts.DraftMax, draftInCalls: opts.DraftInCalls, meta: engine.SamplingMeta(m)}
	bos, _ := m.TokenPiece(max(m.BOS(), 0), true)
	eos, _ := m.TokenPiece(max(m.EOS(), 0), true)
	src := opts.ChatTemplate
	if src == "" {
		s, ok := m.ChatTemplate("")
		if !ok {
			return nil, fmt.Errorf("local: %s has no chat template; set Options.ChatTemplate", m.Path())
		}
		src = s
	}
	var err error
	if c.tmpl, err = chat.NewTemplate(src, bos, eos); err != nil {
		return nil, err
	}
	c.toolTmpl = c.tmpl
	if tu, ok := m.ChatTemplate("tool_use"); ok && opts.ChatTemplate == "" {
		if c.toolTmpl, err = chat.NewTemplate(tu, bos, eos); err != nil {
			return nil, err
		}
	}
	c.detection = callformat.Detect(c.toolTmpl)
	if opts.Format != "" {
		c.detection = callformat.Detection{Format: opts.Format, Reason: "set by Options.Format"}
	}
	c.thinking = strings.Contains(c.toolTmpl.Source(), "<think>")
	p := llama.ContextParams{ContextSize: opts.ContextSize, Threads: opts.Threads, FlashAttention: opts.FlashAttention}
	if opts.Subagents {
		p.Sequences, p.UnifiedKV = 2, true
		c.subagents = true
	} else if seqs > 1 {
		// The whole cache may pass the trained context; each sequence's
		// share, its positions, may not. Unified: measured on four
		// sequences, split streams made every decode slower.
		p.Sequences, p.AllowBeyondTrained, p.UnifiedKV = seqs, true, true
		in, err := m.Info()
		if err != nil {
			return nil, err
		}
		if share := opts.ContextSize / seqs; in.TrainContext > 0 && share > in.TrainContext {
			return nil, fmt.Errorf("local: %d sequences of %d tokens: beyond the trained context of %d", seqs, share, in.TrainContext)
		}
	}
	if c.ctx, err = llama.NewContext(m, p); err != nil {
		return nil, err
	}
	if c.slot, err = llama.NewSlot(c.ctx, 0); err != nil {
		c.ctx.Close()
		return nil, err
	}
	return c, nil
}

// Detection returns the call format in use and why.
func (c *Client) Detection() callformat.Detection { return c.detection }

// Caps returns the template's capabilities.
func (c *Client) Caps() chat.Caps { return c.toolTmpl.Caps() }

// ForgetReplies drops the replies the client keeps for drafting
// (engine.Pace), and keeps what drafting learnt about when it pays. A
// benchmark that sends the same request again calls it, so that one
// repetition does not draft the next from the reply before it. Not while
// a request runs.
func (c *Client) ForgetReplies() { c.pace.ForgetReplies() }

// ContextSize is the context window in tokens: the whole context, or a
// pooled client's share of it.
func (c *Client) ContextSize() int {
	if c.pool != nil {
		return c.ctx.SeqSize()
	}
	return c.ctx.Size()
}

// NewPool makes n clients over one context of n sequences on m, one slot
// each, sharing one unified KV cache of opts.ContextSize tokens (each
// sequence at most opts.ContextSize / n positions): several
// agent runs in one process, as llama-server's slots are (`loop eval
// --parallel`). Their requests take turns on the context, so that one
// run's model works while another's tools run. Close each client; the
// context goes with the last.
func NewPool(m *llama.Model, opts Options, n int) ([]*Client, error) {
	if n < 1 || opts.Subagents {
		return nil, fmt.Errorf("local: a pool of %d clients (subagents: %v): want 1 or more, without subagents", n, opts.Subagents)
	}
	first, err := newClient(m, opts, n)
	if err != nil {
		return nil, err
	}
	p := &pool{open: n}
	first.pool = p
	out := []*Client{first}
	for seq := 1; seq < n; seq++ {
		c := *first
		c.last, c.lastToolsKey, c.lastValidator = promptTokens{}, "", nil
		c.lastGrammarKey, c.lastGrammar = "", nil
		if c.slot, err = llama.NewSlot(first.ctx, seq); err != nil {
			first.ctx.Close()
			return nil, err
		}
		out = append(out, &c)
	}
	return out, nil
}

// pool is what the clients of NewPool share.
type pool struct {
	mu   sync.Mutex // one request at a time on the context
	open int        // clients not closed yet
}

// Close frees the context. The model stays open. Closing a Sub client
// is Release.
func (c *Client) Close() error {
	if c.parent != nil {
		return c.Release()
	}
	if p := c.pool; p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if c.closed {
			return nil
		}
		c.closed = true
		if p.open--; p.open > 0 {
			_, err := c.ctx.SeqRemove(c.slot.Seq(), -1, -1)
			return err
		}
	}
	return c.ctx.Close()
}

// Sub returns a client for a subagent: its own
// slot, on sequence 1 of the same context, with the whole window. The
// parent's sequence is saved to host memory and removed from the cache
// until Release, which clears the subagent's sequence and puts the
// parent's back, so that the parent's next request still reuses its
// prompt. The parent must not be used in between. It needs
// Options.Subagents.
func (c *Client) Sub() (*Client, error) {
	if !c.subagents || c.parent != nil {
		return nil, errors.New("local: Sub needs a client made with Options.Subagents")
	}
	if c.inSub {
		return nil, errors.New("local: a subagent is running already")
	}
	state, err := c.ctx.SeqState(c.slot.Seq())
	if err != nil {
		return nil, fmt.Errorf("local: saving the parent's sequence: %w", err)
	}
	if _, err := c.ctx.SeqRemove(c.slot.Seq(), -1, -1); err != nil {
		return nil, err
	}
	c.inSub = true
	sub := *c
	sub.parent, sub.saved = c, state
	if sub.slot, err = llama.NewSlot(c.ctx, 1); err != nil {
		c.inSub = false
		c.ctx.SetSeqState(c.slot.Seq(), state)
		return nil, err
	}
	return &sub, nil
}

// Fork is Sub as a model.Forker: the agent's task tool runs its
// subagent on it.
func (c *Client) Fork() (model.Model, func() error, error) {
	sub, err := c.Sub()
	if err != nil {
		return nil, nil, err
	}
	return sub, sub.Release, nil
}

// CanFork reports whether Sub can work: the client was made with
// Options.Subagents and is not a Sub client itself.
func (c *Client) CanFork() bool { return c.subagents && c.parent == nil }

// Release ends a Sub client: its sequence is cleared and the parent's
// restored.
func (c *Client) Release() error {
	if c.parent == nil || c.saved == nil {
		return nil
	}
	state := c.saved
	c.saved = nil
	c.parent.inSub = false
	if _, err := c.ctx.SeqRemove(c.slot.Seq(), -1, -1); err != nil {
		return err
	}
	if err := c.ctx.SetSeqState(c.parent.slot.Seq(), state); err != nil {
		// The cache lost the parent's prompt: its slot starts over.
		c.parent.slot.Clear()
		return fmt.Errorf("local: restoring the parent's sequence: %w", err)
	}
	return nil
}
