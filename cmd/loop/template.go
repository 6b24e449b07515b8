package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/llama"
)

type templateFlags struct {
	modelFlags
	tools        string
	messages     string
	templateFile string
	extra        string
	format       string
	choice       string
	noGenPrompt  bool
	jsonOut      bool
}

// templateReport is what `loop template` prints.
type templateReport struct {
	Prompt      string               `json:"prompt"`
	Rewrites    []string             `json:"rewrites,omitempty"`
	Tokens      int                  `json:"tokens"`
	NoTools     int                  `json:"tokens_without_tools,omitempty"`
	ToolsCost   int                  `json:"tools_tokens,omitempty"`
	Format      callformat.Detection `json:"format"`
	Caps        chat.Caps            `json:"chat_template_caps"`
	TemplateSrc string               `json:"template"`
}

func runTemplate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f templateFlags
	fs := newFlagSet("template", stderr)
	f.register(fs)
	fs.StringVar(&f.tools, "tools", "", "tools JSON file (OpenAI form)")
	fs.StringVar(&f.messages, "messages", "", "messages JSON file (OpenAI form)")
	fs.StringVar(&f.templateFile, "chat-template-file", "", "render with this Jinja template instead of the model's")
	fs.StringVar(&f.extra, "chat-template-kwargs", "", `extra template variables as a JSON object, e.g. {"enable_thinking": false}`)
	fs.StringVar(&f.format, "tool-format", "", "call format instead of the detected one: "+strings.Join(callformat.Names(), ", "))
	fs.StringVar(&f.choice, "tool-choice", "auto", "tool_choice: auto, required, none, or a function name")
	fs.BoolVar(&f.noGenPrompt, "no-generation-prompt", false, "do not end with the assistant's turn (nor continue a final assistant message)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	msgs, tools, err := readConversation(f.messages, f.tools)
	if err != nil {
		return err
	}
	m, err := f.load(ctx, stderr, true)
	if err != nil {
		return err
	}
	defer m.Close()
	tmpl, err := f.template(m, len(tools) > 0)
	if err != nil {
		return err
	}
	rep, err := f.render(m, tmpl, msgs, tools)
	if err != nil {
		return err
	}
	if f.jsonOut {
		return writeJSON(stdout, rep)
	}
	io.WriteString(stdout, rep.Prompt)
	fmt.Fprintf(stdout, "\n---\ntemplate: %s\nformat: %s (%s)\nTotal number of tokens: %d\n", rep.TemplateSrc, rep.Format.Format, rep.Format.Reason, rep.Tokens)
	for _, r := range rep.Rewrites {
		fmt.Fprintf(stdout, "rewrite: %s\n", r)
	}
	if len(tools) > 0 {
		fmt.Fprintf(stdout, "without tools: %d tokens; the tools cost %d tokens\n", rep.NoTools, rep.ToolsCost)
	}
	return nil
}

// template returns the chat template to render with: the file given, the
// model's tool_use variant when there are tools and it has one, or its
// default template.
func (f *templateFlags) template(m *llama.Model, withTools bool) (*chat.Template, error) {
	bos, _ := m.TokenPiece(max(m.BOS(), 0), true)
	eos, _ := m.TokenPiece(max(m.EOS(), 0), true)
	src, name := "", ""
	switch {
	case f.templateFile != "":
		b, err := os.ReadFile(f.templateFile)
		if err != nil {
			return nil, err
		}
		src, name = string(b), f.templateFile
	default:
		var ok bool
		if withTools {
			src, ok = m.ChatTemplate("tool_use")
			name = "the model's tool_use template"
		}
		if !ok {
			src, ok = m.ChatTemplate("")
			name = "the model's template"
		}
		if !ok {
			return nil, fmt.Errorf("%s has no chat template; pass --chat-template-file", m.Path())
		}
	}
	t, err := chat.NewTemplate(src, bos, eos)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// render renders the conversation as `loop chat` does (local.Prompt), in
// the detected format or the one given, and counts its tokens with and
// without the tools.
func (f *templateFlags) render(m *llama.Model, t *chat.Template, msgs []chat.Message, tools []chat.Tool) (*templateReport, error) {
	det := callformat.Detect(t)
	if f.format != "" {
		det = callformat.Detection{Format: f.format, Reason: "set by --tool-format"}
	}
	choice, err := toolChoice(f.choice)
	if err != nil {
		return nil, err
	}
	req := local.Request{Messages: msgs, Tools: tools, ToolChoice: choice}
	if f.extra != "" {
		req.Extra = json.RawMessage(f.extra)
	}
	p, err := f.prompt(t, det.Format, req)
	if err != nil {
		return nil, err
	}
	rep := &templateReport{Prompt: p.Text, Rewrites: p.Rewrites, Format: det, Caps: t.Caps(), TemplateSrc: f.templateFile}
	if rep.TemplateSrc == "" {
		rep.TemplateSrc = "the model's"
	}
	if rep.Tokens, err = countPrompt(m, p.Text); err != nil {
		return nil, err
	}
	if len(tools) > 0 {
		req.Tools = nil
		bare, err := f.prompt(t, det.Format, req)
		if err != nil {
			return nil, err
		}
		if rep.NoTools, err = countPrompt(m, bare.Text); err != nil {
			return nil, err
		}
		rep.ToolsCost = rep.Tokens - rep.NoTools
	}
	return rep, nil
}

// countPrompt counts the tokens `loop chat` sends for a rendered prompt
// (local.Tokenize: the template's BOS and the vocabulary's are one).
func countPrompt(m *llama.Model, prompt string) (int, error) {
	toks, err := local.Tokenize(m, prompt)
	return len(toks), err
}

// prompt is local.Prompt, or without the generation prompt the history
// alone (local.HistoryPrompt).
func (f *templateFlags) prompt(t *chat.Template, format string, req local.Request) (chat.Prompt, error) {
	if !f.noGenPrompt {
		return local.Prompt(t, format, req)
	}
	return local.HistoryPrompt(t, format, req)
}
