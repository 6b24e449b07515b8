package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loopagent/loop/engine"
	"github.com/spf13/pflag"
)

type completeFlags struct {
	modelFlags
	sampling    samplingFlags
	prompt      string
	file        string
	nPredict    int
	ctxSize     int
	threads     int
	grammarFile string
	grammarMode string
	stop        []string
	jsonOut     bool
}

// completion is the result of `loop complete`, shaped like llama-server's
// /completion response.
type completion struct {
	Content         string  `json:"content"`
	StopType        string  `json:"stop_type"` // eos, limit or word
	StoppingWord    string  `json:"stopping_word"`
	TokensPredicted int     `json:"tokens_predicted"`
	TokensEvaluated int     `json:"tokens_evaluated"`
	Seed            uint32  `json:"seed"`
	Timings         timings `json:"timings"`
}

type timings struct {
	CacheN             int     `json:"cache_n"`
	PromptN            int     `json:"prompt_n"`
	PromptMs           float64 `json:"prompt_ms"`
	PromptPerSecond    float64 `json:"prompt_per_second"`
	PredictedN         int     `json:"predicted_n"`
	PredictedMs        float64 `json:"predicted_ms"`
	PredictedPerSecond float64 `json:"predicted_per_second"`
	GrammarRejections  int     `json:"grammar_rejections,omitempty"`
}

func (f *completeFlags) registerAll(fs *pflag.FlagSet) {
	f.register(fs)
	f.sampling.register(fs)
	fs.StringVarP(&f.prompt, "prompt", "p", "", "prompt text")
	fs.StringVarP(&f.file, "file", "f", "", "read the prompt from a file")
	fs.IntVarP(&f.nPredict, "n-predict", "n", 128, "tokens to predict at most (-1: until the context is full)")
	fs.IntVarP(&f.ctxSize, "ctx-size", "c", 0, "context size (default: 4096, capped at the trained context)")
	fs.IntVarP(&f.threads, "threads", "t", 0, "threads (default: all CPUs)")
	fs.StringVar(&f.grammarFile, "grammar-file", "", "constrain the output with a GBNF grammar file")
	fs.StringVar(&f.grammarMode, "grammar-mode", "exact", "exact, grammar-first or rejection-first (fast, not exact)")
	fs.StringArrayVar(&f.stop, "stop", nil, "stop when the output contains this text (repeatable)")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON result instead of streaming")
}

func runComplete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f completeFlags
	fs := newFlagSet("complete", stderr)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if (f.prompt == "") == (f.file == "") {
		return usagef("give exactly one of -p PROMPT or -f FILE")
	}
	prompt := f.prompt
	if f.file != "" {
		b, err := os.ReadFile(f.file)
		if err != nil {
			return err
		}
		prompt = string(b)
	}
	var gbnf string
	if f.grammarFile != "" {
		b, err := os.ReadFile(f.grammarFile)
		if err != nil {
			return err
		}
		gbnf = string(b)
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
	out := stdout
	if f.jsonOut {
		out = io.Discard
	}
	res, err := f.complete(ctx, m, prompt, gbnf, o, out)
	if err != nil {
		return err
	}
	if f.jsonOut {
		return writeJSON(stdout, res)
	}
	t := res.Timings
	fmt.Fprintf(stdout, "\n\nstop_type: %s\n", res.StopType)
	if res.StopType == engine.StopWord {
		fmt.Fprintf(stdout, "stopping_word: %q\n", res.StoppingWord)
	}
	fmt.Fprintf(stdout, "tokens_predicted: %d\ntokens_evaluated: %d\nseed: %d\n", res.TokensPredicted, res.TokensEvaluated, res.Seed)
	fmt.Fprintf(stdout, "timings: cache_n %d, prompt_n %d in %.2f ms (%.2f t/s), predicted_n %d in %.2f ms (%.2f t/s)",
		t.CacheN, t.PromptN, t.PromptMs, t.PromptPerSecond, t.PredictedN, t.PredictedMs, t.PredictedPerSecond)
	if gbnf != "" {
		fmt.Fprintf(stdout, ", grammar rejected %d", t.GrammarRejections)
	}
	fmt.Fprintln(stdout)
	return nil
}
