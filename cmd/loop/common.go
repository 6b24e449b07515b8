package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
	"github.com/spf13/pflag"
)

// modelFlags are the flags every model-loading subcommand shares, named as
// in llama.cpp.
type modelFlags struct {
	model      string
	gpuLayers  int
	noMmap     bool
	mlock      bool
	backendDir string
	verbose    bool
}

func (f *modelFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.model, "model", "m", "", "GGUF model file")
	fs.IntVar(&f.gpuLayers, "n-gpu-layers", 0, "layers to offload to a GPU backend (-1: all)")
	fs.IntVar(&f.gpuLayers, "ngl", 0, "short for --n-gpu-layers")
	fs.BoolVar(&f.noMmap, "no-mmap", false, "read the weights instead of mapping the file")
	fs.BoolVar(&f.mlock, "mlock", false, "lock the weights in RAM")
	fs.StringVar(&f.backendDir, "backend-dir", "", "directory of ggml backend libraries such as libggml-cuda.so (default: lib/ next to the binary)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show llama.cpp's log")
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("loop "+name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	return fs
}

// parse parses args and maps flag errors to usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return err
		}
		return usageError{err}
	}
	return nil
}

// setup routes llama.cpp's log to stderr (errors, or everything with -v)
// and loads the GPU backend libraries.
func (f *modelFlags) setup(stderr io.Writer) error {
	level := slog.LevelError
	if f.verbose {
		level = slog.LevelDebug
	}
	llama.SetLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
	dir := f.backendDir
	if dir == "" {
		exe, err := selfExe()
		if err != nil {
			return nil
		}
		dir = filepath.Join(filepath.Dir(exe), "lib")
	}
	loaded, err := llama.LoadBackends(dir)
	if err != nil {
		return err
	}
	if len(loaded) > 0 && f.verbose {
		fmt.Fprintf(stderr, "loaded backends from %s: %v\n", dir, loaded)
	}
	return nil
}

// resolve takes the model this binary carries (`loop pack`) when -m is
// not given.
func (f *modelFlags) resolve(stderr io.Writer) error {
	if f.model != "" {
		return nil
	}
	p, err := packedModel(stderr)
	f.model = p
	return err
}

// loadForContext loads the model and resolves the context size and
// threads for it; on an error the model is closed again.
func loadForContext(ctx context.Context, mf *modelFlags, gf *genFlags, stderr io.Writer) (*llama.Model, llama.ContextParams, error) {
	m, err := mf.load(ctx, stderr, false)
	if err != nil {
		return nil, llama.ContextParams{}, err
	}
	p, err := gf.contextParams(m)
	if err != nil {
		m.Close()
		return nil, llama.ContextParams{}, err
	}
	return m, p, nil
}

// load sets up logging and backends and loads the model, showing progress
// on stderr when the load takes a while.
func (f *modelFlags) load(ctx context.Context, stderr io.Writer, vocabOnly bool) (*llama.Model, error) {
	if err := f.resolve(stderr); err != nil {
		return nil, err
	}
	if f.model == "" {
		return nil, usagef("no model: pass -m FILE")
	}
	if err := f.setup(stderr); err != nil {
		return nil, err
	}
	bar := newProgressBar(stderr, "loading "+filepath.Base(f.model), 100)
	m, err := llama.LoadModel(ctx, f.model, llama.ModelParams{
		GPULayers: f.gpuLayers, NoMmap: f.noMmap, Mlock: f.mlock, VocabOnly: vocabOnly,
		Progress: func(p float32) { bar.set(int(p * 100)) },
	})
	bar.done()
	return m, err
}

// defaultThreads is the thread count when -t is not given: the physical
// cores, as llama.cpp chooses.
func defaultThreads() int { return llama.DefaultThreads() }

// genFlags are the context, thread and length flags of complete and chat,
// with llama.cpp's meanings: -c 0 is the trained context, -t -1 the
// default threads, -n -1 (or -2) until the context is full and -n 0
// nothing beyond the prompt.
type genFlags struct {
	nPredict int
	ctxSize  int
	threads  int
	draftMax int
	flash    string
}

func (g *genFlags) registerGen(fs *pflag.FlagSet, nPredict int) {
	fs.IntVarP(&g.nPredict, "n-predict", "n", nPredict, "tokens to predict at most (-1: until the context is full, 0: none)")
	fs.IntVarP(&g.ctxSize, "ctx-size", "c", 4096, "context size (0: the model's trained context)")
	fs.IntVarP(&g.threads, "threads", "t", -1, "threads (-1: the physical cores)")
	fs.StringVar(&g.flash, "flash-attn", "auto", "flash attention: auto, on or off (auto: off when every layer runs on the CPU, where the pinned ggml's kernel is slower; llama.cpp decides on a GPU)")
	fs.IntVar(&g.draftMax, "draft-max", -1, fmt.Sprintf("draft up to this many tokens by prompt lookup everywhere and verify them in one decode; the output is the same (0: off; -1: %d, inside tool calls, and in answers only from the last tool results, so none in loop complete)", callDraftMax))
}

// callDraftMax is the draft length inside tool calls when --draft-max is
// not given: a call's arguments copy what the conversation holds (a path,
// the lines an edit replaces), so drafts there are long and accepted.
const callDraftMax = 16

// draft is what --draft-max asks for: the longest draft, and whether
// drafting happens only inside tool calls (local.Options.DraftInCalls).
func (g *genFlags) draft() (max int, inCalls bool) {
	if g.draftMax < 0 {
		return callDraftMax, true
	}
	return g.draftMax, false
}

// check refuses values llama.cpp gives no meaning, before a model loads.
func (g *genFlags) check() error {
	switch {
	case g.nPredict < -2:
		return usagef("-n %d: want -1 (until the context is full), 0 or more", g.nPredict)
	case g.ctxSize < 0:
		return usagef("-c %d: want 0 (the trained context) or more", g.ctxSize)
	case g.threads < -1 || g.threads > llama.MaxThreads:
		return usagef("-t %d: want -1 (the physical cores) or 1..%d", g.threads, llama.MaxThreads)
	case g.draftMax < -1:
		return usagef("--draft-max %d: want -1 (inside tool calls), 0 (off) or more", g.draftMax)
	case g.flash != "auto" && g.flash != "on" && g.flash != "off":
		return usagef("--flash-attn %q: want auto, on or off", g.flash)
	}
	return nil
}

// contextParams are the context size and threads for m.
func (g *genFlags) contextParams(m *llama.Model) (llama.ContextParams, error) {
	p := llama.ContextParams{ContextSize: g.ctxSize, Threads: max(g.threads, 0), FlashAttention: g.flash}
	if g.ctxSize == 0 {
		in, err := m.Info()
		if err != nil {
			return p, err
		}
		p.ContextSize = in.TrainContext
	}
	return p, nil
}

// predict is -n as engine.Request.NPredict and local.Request.MaxTokens
// take it: 0 until the context is full, negative nothing.
func (g *genFlags) predict() int {
	switch {
	case g.nPredict < 0:
		return 0
	case g.nPredict == 0:
		return -1
	}
	return g.nPredict
}

// writeJSON prints v as indented JSON, with <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// toolChoice reads --tool-choice: auto, required, none, or a function name.
func toolChoice(s string) (grammar.Choice, error) {
	switch s {
	case "auto", "required", "none":
		return grammar.ParseChoice(json.RawMessage(`"` + s + `"`))
	}
	return grammar.Choice{Mode: grammar.ChoiceFunction, Function: s}, nil
}

// whitespace reads --whitespace.
func whitespace(s string) (grammar.Whitespace, error) {
	w, err := grammar.ParseWhitespace(s)
	if err != nil {
		return w, usageError{err}
	}
	return w, nil
}

// readConversation reads the --messages file, which is required, and the
// --tools file, if any, both in the OpenAI form.
func readConversation(messages, tools string) ([]chat.Message, []chat.Tool, error) {
	if messages == "" {
		return nil, nil, usagef("no conversation: pass --messages FILE")
	}
	b, err := os.ReadFile(messages)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := chat.ParseMessages(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", messages, err)
	}
	if tools == "" {
		return msgs, nil, nil
	}
	if b, err = os.ReadFile(tools); err != nil {
		return nil, nil, err
	}
	ts, err := chat.ParseTools(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", tools, err)
	}
	return msgs, ts, nil
}
