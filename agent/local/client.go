package local

import (
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
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
	// ChatTemplate replaces the model's template (Jinja source), as
	// llama-server's --chat-template-file does.
	ChatTemplate string
	// Format names the call format instead of detecting it from the
	// template (one of chat.FormatNames).
	Format string
}

// Client completes chats on one model with one KV cache. It is not safe for
// concurrent use.
type Client struct {
	model     *llama.Model
	ctx       *llama.Context
	slot      *llama.Slot
	tmpl      *chat.Template // default template
	toolTmpl  *chat.Template // tool_use variant, or tmpl
	detection chat.Detection
	thinking  bool // the template writes <think> blocks
}

// New makes a client over m. The template must render; the context must
// fit.
func New(m *llama.Model, opts Options) (*Client, error) {
	c := &Client{model: m}
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
	c.detection = chat.DetectFormat(c.toolTmpl)
	if opts.Format != "" {
		c.detection = chat.Detection{Format: opts.Format, Reason: "set by Options.Format"}
	}
	c.thinking = strings.Contains(c.toolTmpl.Source(), "<think>")
	if c.ctx, err = llama.NewContext(m, llama.ContextParams{ContextSize: opts.ContextSize, Threads: opts.Threads}); err != nil {
		return nil, err
	}
	if c.slot, err = llama.NewSlot(c.ctx, 0); err != nil {
		c.ctx.Close()
		return nil, err
	}
	return c, nil
}

// Detection returns the call format in use and why.
func (c *Client) Detection() chat.Detection { return c.detection }

// Caps returns the template's capabilities.
func (c *Client) Caps() chat.Caps { return c.toolTmpl.Caps() }

// ContextSize is the context window in tokens.
func (c *Client) ContextSize() int { return c.ctx.Size() }

// Close frees the context. The model stays open.
func (c *Client) Close() error {
	return c.ctx.Close()
}
