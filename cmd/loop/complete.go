package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopagent/loop/llama"
	"github.com/spf13/pflag"
)

type completeFlags struct {
	modelFlags
	prompt      string
	file        string
	nPredict    int
	ctxSize     int
	threads     int
	temp        float32
	topK        int
	topP        float32
	minP        float32
	repeat      float32
	repeatLastN int
	seed        int64
	grammarFile string
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
	var grammar string
	if f.grammarFile != "" {
		b, err := os.ReadFile(f.grammarFile)
		if err != nil {
			return err
		}
		grammar = string(b)
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
	res, err := complete(ctx, m, f, prompt, grammar, out)
	if err != nil {
		return err
	}
	if f.jsonOut {
		return writeJSON(stdout, res)
	}
	t := res.Timings
	fmt.Fprintf(stdout, "\n\nstop_type: %s\n", res.StopType)
	if res.StopType == "word" {
		fmt.Fprintf(stdout, "stopping_word: %q\n", res.StoppingWord)
	}
	fmt.Fprintf(stdout, "tokens_predicted: %d\ntokens_evaluated: %d\nseed: %d\n", res.TokensPredicted, res.TokensEvaluated, res.Seed)
	fmt.Fprintf(stdout, "timings: cache_n %d, prompt_n %d in %.2f ms (%.2f t/s), predicted_n %d in %.2f ms (%.2f t/s)\n",
		t.CacheN, t.PromptN, t.PromptMs, t.PromptPerSecond, t.PredictedN, t.PredictedMs, t.PredictedPerSecond)
	return nil
}

// registerAll binds the flags of `loop complete`, named as in llama.cpp.
func (f *completeFlags) registerAll(fs *pflag.FlagSet) {
	f.register(fs)
	fs.StringVarP(&f.prompt, "prompt", "p", "", "prompt text")
	fs.StringVarP(&f.file, "file", "f", "", "read the prompt from a file")
	fs.IntVarP(&f.nPredict, "n-predict", "n", 128, "tokens to predict at most")
	fs.IntVarP(&f.ctxSize, "ctx-size", "c", 0, "context size (default: 4096, capped at the trained context)")
	fs.IntVarP(&f.threads, "threads", "t", 0, "threads (default: all CPUs)")
	fs.Float32Var(&f.temp, "temp", 0.8, "temperature; 0 or less is greedy")
	fs.IntVar(&f.topK, "top-k", 40, "top-k (0: off)")
	fs.Float32Var(&f.topP, "top-p", 0.95, "top-p (1: off)")
	fs.Float32Var(&f.minP, "min-p", 0.05, "min-p (0: off)")
	fs.Float32Var(&f.repeat, "repeat-penalty", 1.0, "repeat penalty (1: off)")
	fs.IntVar(&f.repeatLastN, "repeat-last-n", 64, "tokens the repeat penalty looks back")
	fs.Int64Var(&f.seed, "seed", -1, "sampling seed (-1: random)")
	fs.StringVar(&f.grammarFile, "grammar-file", "", "constrain the output with a GBNF grammar file")
	fs.StringArrayVar(&f.stop, "stop", nil, "stop when the output contains this text (repeatable)")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON result instead of streaming")
}

// chain builds the sampler chain in llama.cpp's default order (penalties,
// top_k, top_p, min_p, temperature) after the grammar, ending in dist, or
// greedy when temp <= 0.
func (f *completeFlags) chain(m *llama.Model, grammar string, seed uint32) (*llama.Sampler, error) {
	ch := llama.NewChain(false)
	add := func(s *llama.Sampler, err error) error {
		if err != nil {
			return err
		}
		return ch.Add(s)
	}
	var err error
	if grammar != "" {
		err = add(m.NewGrammar(grammar, "root"))
	}
	if f.temp <= 0 {
		err = errors.Join(err, add(llama.NewGreedy(), nil))
	} else {
		if f.repeat != 1 {
			err = errors.Join(err, add(llama.NewPenalties(f.repeatLastN, f.repeat, 0, 0), nil))
		}
		err = errors.Join(err,
			add(llama.NewTopK(f.topK), nil),
			add(llama.NewTopP(f.topP, 1), nil),
			add(llama.NewMinP(f.minP, 1), nil),
			add(llama.NewTemp(f.temp), nil),
			add(llama.NewDist(seed), nil))
	}
	if err != nil {
		ch.Close()
		return nil, err
	}
	return ch, nil
}

func complete(ctx context.Context, m *llama.Model, f completeFlags, prompt, grammar string, out io.Writer) (*completion, error) {
	res := &completion{Seed: uint32(f.seed)}
	if f.seed < 0 {
		res.Seed = rand.Uint32()
	}
	toks, err := m.Tokenize(prompt, true, true)
	if err != nil {
		return nil, err
	}
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: f.ctxSize, Threads: f.threads})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ch, err := f.chain(m, grammar, res.Seed)
	if err != nil {
		return nil, err
	}
	defer ch.Close()
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		return nil, err
	}
	st, err := slot.Prefill(ctx, toks)
	if err != nil {
		return nil, err
	}
	res.TokensEvaluated = len(toks)
	res.Timings = timings{CacheN: st.CacheN, PromptN: st.PromptN, PromptMs: st.PromptMs, PromptPerSecond: st.PerSecond()}
	start := time.Now()
	if err := generate(ctx, m, slot, ch, f, res, out); err != nil {
		return nil, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	res.Timings.PredictedN = res.TokensPredicted
	res.Timings.PredictedMs = ms
	if ms > 0 {
		res.Timings.PredictedPerSecond = float64(res.TokensPredicted) / ms * 1000
	}
	return res, nil
}

// generate samples up to f.nPredict tokens after the slot's prompt,
// streaming complete UTF-8 to out, and records why it stopped: eos (an
// end-of-generation token), word (a stop string) or limit (n_predict or a
// full context), as llama-server does.
func generate(ctx context.Context, m *llama.Model, slot *llama.Slot, ch *llama.Sampler, f completeFlags, res *completion, out io.Writer) error {
	var text strings.Builder
	printed := 0
	res.StopType = "limit"
	for res.TokensPredicted < f.nPredict {
		tok, err := ch.Sample(slot.Context(), -1)
		if err != nil {
			return err
		}
		res.TokensPredicted++
		if m.IsEOG(tok) {
			res.StopType = "eos"
			break
		}
		piece, _ := m.TokenPiece(tok, false)
		text.WriteString(piece)
		if w, i := stopWord(text.String(), f.stop); w != "" {
			res.StopType, res.StoppingWord = "word", w
			s := text.String()[:i]
			text.Reset()
			text.WriteString(s)
			break
		}
		printed += flushValid(out, text.String(), printed, f.stop)
		if res.TokensPredicted == f.nPredict {
			break
		}
		if err := slot.Append(ctx, tok); err != nil {
			if errors.Is(err, llama.ErrContextFull) {
				break
			}
			return err
		}
	}
	res.Content = text.String()
	if printed < len(res.Content) {
		io.WriteString(out, res.Content[printed:])
	}
	return nil
}

// stopWord returns the first stop string in s and its index.
func stopWord(s string, stops []string) (string, int) {
	for _, w := range stops {
		if i := strings.Index(s, w); w != "" && i >= 0 {
			return w, i
		}
	}
	return "", -1
}

// flushValid writes the part of s after printed that is complete UTF-8 and
// cannot be the start of a stop word, and returns how many bytes it wrote.
func flushValid(w io.Writer, s string, printed int, stops []string) int {
	end := len(s)
	for end > printed && !utf8.ValidString(s[printed:end]) {
		end--
	}
	for _, stop := range stops { // hold back a partial stop word
		for k := min(len(stop)-1, end-printed); k > 0; k-- {
			if strings.HasSuffix(s[:end], stop[:k]) {
				end -= k
				break
			}
		}
	}
	if end <= printed {
		return 0
	}
	io.WriteString(w, s[printed:end])
	return end - printed
}
