package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/llama"
	"github.com/spf13/pflag"
)

type chatFlags struct {
	modelFlags
	genFlags
	sampling     samplingFlags
	messages     string
	tools        string
	choice       string
	parallel     bool
	maxCalls     int
	templateFile string
	format       string
	whitespace   string
	jsonOut      bool
	sse          bool
	reasoning    reasoningFlags
}

func (f *chatFlags) registerAll(fs *pflag.FlagSet) {
	f.register(fs)
	f.sampling.register(fs)
	fs.StringVar(&f.messages, "messages", "", "messages JSON file (OpenAI form); a final assistant message is continued")
	fs.StringVar(&f.tools, "tools", "", "tools JSON file (OpenAI form)")
	fs.StringVar(&f.choice, "tool-choice", "auto", "tool_choice: auto, required, none, or a function name")
	fs.BoolVar(&f.parallel, "parallel-tool-calls", false, "allow several calls")
	fs.IntVar(&f.maxCalls, "max-calls", 0, "with --parallel-tool-calls, the most calls (0: no limit)")
	f.registerGen(fs, 512)
	f.reasoning.register(fs)
	fs.StringVar(&f.templateFile, "chat-template-file", "", "use this Jinja chat template instead of the model's")
	fs.StringVar(&f.format, "tool-format", "", "call format instead of the detected one: "+strings.Join(callformat.Names(), ", "))
	fs.StringVar(&f.whitespace, "whitespace", "single", "whitespace in calls' JSON: single, compact or flexible")
	fs.BoolVar(&f.jsonOut, "json", false, "print the response as JSON instead of streaming")
	fs.BoolVar(&f.sse, "sse", false, "stream the reply as llama-server does with \"stream\": true: chat.completion.chunk data lines, then data: [DONE]")
}

// chatResponse is `loop chat --json`: llama-server's chat completion
// response with loop's parse problems and validation beside it.
type chatResponse struct {
	Choices []chatChoice         `json:"choices"`
	Usage   local.Usage          `json:"usage"`
	Format  string               `json:"tool_call_format"`
	Issues  []validate.Violation `json:"violations,omitempty"`
	Parse   []callformat.Problem `json:"problems,omitempty"`
	Error   string               `json:"error,omitempty"` // why generation stopped early
}

type chatChoice struct {
	FinishReason string       `json:"finish_reason"`
	Message      chat.Message `json:"message"`
}

// runChat streams the reply to stdout and the finish reason, problems and
// usage to stderr; with --json, one response on stdout, written also when
// generation fails or is interrupted.
func runChat(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f chatFlags
	fs := newFlagSet("chat", stderr)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if f.sse && f.jsonOut {
		return usagef("give --sse or --json, not both")
	}
	req, err := f.request()
	if err != nil {
		return err
	}
	o, err := f.sampling.overrides()
	if err != nil {
		return err
	}
	m, err := f.load(ctx, stderr, false)
	if err != nil {
		return err
	}
	defer m.Close()
	// The client resolves the flags with the model's own keys.
	req.Sampling = model.Sampling{User: o}
	c, err := f.client(m)
	if err != nil {
		return err
	}
	defer c.Close()
	switch {
	case f.sse:
		io.WriteString(stdout, "data: "+sseRoleChunk+"\n\n")
		req.OnDelta = func(d callformat.Delta) { writeChunk(stdout, callformat.ChunkJSON(d, "")) }
	case !f.jsonOut:
		req.OnDelta = func(d callformat.Delta) { printDelta(stdout, d) }
	}
	resp, err := c.Complete(ctx, req)
	if resp == nil {
		return err
	}
	if f.sse {
		if err == nil {
			writeChunk(stdout, callformat.ChunkJSON(callformat.Delta{}, resp.FinishReason))
			io.WriteString(stdout, "data: [DONE]\n\n")
		}
		printChatSummary(stderr, resp)
		return err
	}
	if f.jsonOut {
		out := chatResponse{Choices: []chatChoice{{resp.FinishReason, resp.Message}}, Usage: resp.Usage,
			Format: resp.Format, Issues: resp.Violations, Parse: resp.Parsed.Problems}
		if err != nil {
			out.Error = err.Error()
		}
		if werr := writeJSON(stdout, out); werr != nil {
			return werr
		}
		return err
	}
	printChatSummary(stderr, resp)
	return err
}

// printChatSummary writes what `loop chat` says after the streamed reply:
// the finish reason, violations, parse problems and usage.
func printChatSummary(stderr io.Writer, resp *local.Response) {
	fmt.Fprintln(stderr) // the reply on stdout ends as the model ended it
	fmt.Fprintf(stderr, "finish_reason: %s (format %s)\n", resp.FinishReason, resp.Format)
	for _, v := range resp.Violations {
		fmt.Fprintf(stderr, "violation: %s\n", v)
	}
	for _, p := range resp.Parsed.Problems {
		fmt.Fprintf(stderr, "problem: %s\n", p)
	}
	fmt.Fprintf(stderr, "usage: prompt %d (cache_n %d, prompt_n %d), completion %d",
		resp.Usage.PromptTokens, resp.Usage.CacheN, resp.Usage.PromptN, resp.Usage.CompletionTokens)
	if u := resp.Usage; u.DraftN > 0 {
		fmt.Fprintf(stderr, ", draft accepted %d of %d", u.DraftNAccepted, u.DraftN)
	}
	fmt.Fprintln(stderr)
}

// client makes the in-process client with the flags' context, threads,
// template and format.
func (f *chatFlags) client(m *llama.Model) (*local.Client, error) {
	p, err := f.contextParams(m)
	if err != nil {
		return nil, err
	}
	draftMax, inCalls := f.draft()
	opts := local.Options{ContextSize: p.ContextSize, Threads: p.Threads, FlashAttention: p.FlashAttention, Format: f.format, DraftMax: draftMax, DraftInCalls: inCalls}
	if f.templateFile != "" {
		b, err := os.ReadFile(f.templateFile)
		if err != nil {
			return nil, err
		}
		opts.ChatTemplate = string(b)
	}
	return local.New(m, opts)
}

// sseRoleChunk is the first chunk of a stream: the assistant's role, and
// no content yet.
const sseRoleChunk = `{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}]}`

// writeChunk writes one chunk as a data line of an event stream.
func writeChunk(w io.Writer, chunk []byte) {
	io.WriteString(w, "data: "+strings.TrimSpace(string(chunk))+"\n\n")
}

func printDelta(w io.Writer, d callformat.Delta) {
	switch {
	case d.Content != "":
		io.WriteString(w, d.Content)
	case d.Reasoning != "":
		io.WriteString(w, d.Reasoning)
	case d.Call != nil && d.Call.Name != "":
		fmt.Fprintf(w, "\n[call %d %s %s] ", d.Call.Index, d.Call.ID, d.Call.Name)
		io.WriteString(w, d.Call.Arguments)
	case d.Call != nil:
		io.WriteString(w, d.Call.Arguments)
	}
}

func (f *chatFlags) request() (local.Request, error) {
	var req local.Request
	var err error
	if req.Messages, req.Tools, err = readConversation(f.messages, f.tools); err != nil {
		return req, err
	}
	// The client checks the history too; here it fails before the model
	// loads.
	if err := validate.History(req.Messages); err != nil {
		return req, fmt.Errorf("%s: %w", f.messages, err)
	}
	if req.ToolChoice, err = toolChoice(f.choice); err != nil {
		return req, err
	}
	if req.Whitespace, err = whitespace(f.whitespace); err != nil {
		return req, err
	}
	if err := f.check(); err != nil {
		return req, err
	}
	req.ParallelToolCalls, req.MaxCalls, req.MaxTokens = f.parallel, f.maxCalls, f.predict()
	req.Reasoning, req.ReasoningBudget, err = f.reasoning.values()
	return req, err
}
