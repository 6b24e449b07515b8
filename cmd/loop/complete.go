package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
	"github.com/spf13/pflag"
)

type completeFlags struct {
	modelFlags
	genFlags
	sampling    samplingFlags
	prompt      string
	file        string
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
	NCtx            int     `json:"n_ctx"`
	Timings         timings `json:"timings"`
	Error           string  `json:"error,omitempty"` // why generation stopped early
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
	GrammarChecks      int     `json:"grammar_checks,omitempty"`
	DraftN             int     `json:"draft_n,omitempty"`          // draft tokens verified (--draft-max)
	DraftNAccepted     int     `json:"draft_n_accepted,omitempty"` // of them kept
}

func (f *completeFlags) registerAll(fs *pflag.FlagSet) {
	f.register(fs)
	f.registerGen(fs, 128)
	f.sampling.register(fs)
	fs.StringVarP(&f.prompt, "prompt", "p", "", "prompt text")
	fs.StringVarP(&f.file, "file", "f", "", "read the prompt from a file")
	fs.StringVar(&f.grammarFile, "grammar-file", "", "constrain the output with a GBNF grammar file")
	fs.StringVar(&f.grammarMode, "grammar-mode", "exact", "exact, grammar-first or rejection-first (fast, not exact)")
	fs.StringArrayVar(&f.stop, "stop", nil, "stop when the output contains this text (repeatable)")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON result instead of streaming")
}

// grammarModes maps --grammar-mode to llama's modes.
var grammarModes = map[string]llama.GrammarMode{
	"exact": llama.GrammarExact, "grammar-first": llama.GrammarFirst, "rejection-first": llama.RejectionFirst,
}

// runComplete streams the text to stdout and the statistics to stderr, so
// `loop complete ... > out.txt` holds only the text; with --json, one
// result on stdout, written also when generation fails or is interrupted.
func runComplete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f completeFlags
	fs := newFlagSet("complete", stderr)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	in, err := f.inputs()
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
	res, err := f.complete(ctx, m, in, out)
	if res == nil {
		return err
	}
	if f.jsonOut {
		if err != nil {
			res.Error = err.Error()
		}
		if werr := writeJSON(stdout, res); werr != nil {
			return werr
		}
		return err
	}
	fmt.Fprintln(stderr) // the text on stdout ends as the model ended it
	printStats(stderr, res, in.gbnf != "")
	return err
}

// completeInputs are the prompt, grammar and settings of a run, all read
// and checked before the model loads.
type completeInputs struct {
	prompt, gbnf string
	mode         llama.GrammarMode
	sampling     sampler.Overrides
}

func (f *completeFlags) inputs() (completeInputs, error) {
	var in completeInputs
	if (f.prompt == "") == (f.file == "") {
		return in, usagef("give exactly one of -p PROMPT or -f FILE")
	}
	if err := f.check(); err != nil {
		return in, err
	}
	mode, ok := grammarModes[f.grammarMode]
	if !ok {
		return in, usagef("--grammar-mode %q: want exact, grammar-first or rejection-first", f.grammarMode)
	}
	in.mode, in.prompt = mode, f.prompt
	if f.file != "" {
		b, err := os.ReadFile(f.file)
		if err != nil {
			return in, err
		}
		in.prompt = string(b)
	}
	if f.grammarFile != "" {
		b, err := os.ReadFile(f.grammarFile)
		if err != nil {
			return in, err
		}
		if err := engine.Check(string(b)); err != nil {
			return in, usagef("--grammar-file %s: %v", f.grammarFile, err)
		}
		in.gbnf = string(b)
	}
	var err error
	in.sampling, err = f.sampling.overrides()
	return in, err
}

// printStats writes what llama-server reports beside the text.
func printStats(w io.Writer, res *completion, grammar bool) {
	t := res.Timings
	fmt.Fprintf(w, "stop_type: %s\n", res.StopType)
	if res.StopType == engine.StopWord {
		fmt.Fprintf(w, "stopping_word: %q\n", res.StoppingWord)
	}
	fmt.Fprintf(w, "tokens_predicted: %d\ntokens_evaluated: %d\nseed: %d\n", res.TokensPredicted, res.TokensEvaluated, res.Seed)
	fmt.Fprintf(w, "timings: cache_n %d, prompt_n %d in %.2f ms (%.2f t/s), predicted_n %d in %.2f ms (%.2f t/s)",
		t.CacheN, t.PromptN, t.PromptMs, t.PromptPerSecond, t.PredictedN, t.PredictedMs, t.PredictedPerSecond)
	if grammar {
		fmt.Fprintf(w, ", grammar rejected %d, checked %d", t.GrammarRejections, t.GrammarChecks)
	}
	if t.DraftN > 0 {
		fmt.Fprintf(w, ", draft accepted %d of %d", t.DraftNAccepted, t.DraftN)
	}
	fmt.Fprintln(w)
}
