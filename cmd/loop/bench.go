package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/loopagent/loop/llama"
)

type benchFlags struct {
	modelFlags
	nPrompt    int
	nGen       int
	threads    int
	reps       int
	batch      int
	ubatch     int
	flashAttn  string
	cacheK     string // KV cache types, llama-bench's -ctk and -ctv
	cacheV     string
	turns      int
	turnTokens int
	coldEvery  int
	noReuse    bool
	jsonOut    bool
	vs         string
	vsServer   string
	roofline   bool
	draftMax   int
	grammar    bool
}

// benchResult is one llama-bench row: a test and its speed over repetitions.
type benchResult struct {
	Model   string    `json:"model"`
	Size    uint64    `json:"model_size"`
	Params  uint64    `json:"model_n_params"`
	Backend string    `json:"backends"`
	Threads int       `json:"n_threads"`
	TypeK   string    `json:"type_k"`
	TypeV   string    `json:"type_v"`
	Test    string    `json:"test"`
	NPrompt int       `json:"n_prompt"`
	NGen    int       `json:"n_gen"`
	Samples []float64 `json:"samples_ts"`
	AvgTS   float64   `json:"avg_ts"`
	StdevTS float64   `json:"stddev_ts"`
	// Draft is set on a test that decoded speculatively (--draft-max).
	Draft *draftStats `json:"draft,omitempty"`
	// Grammar is set on a test under a call grammar (--grammar).
	Grammar *grammarStats `json:"grammar,omitempty"`
}

// reuseTurn is one turn of the cache-reuse scenario, cold and warm.
type reuseTurn struct {
	Turn   int          `json:"turn"`
	Prompt int          `json:"prompt_tokens"`
	Cold   turnMeasures `json:"cold"`
	Warm   turnMeasures `json:"warm"`
}

type turnMeasures struct {
	CacheN  int     `json:"cache_n"`
	PromptN int     `json:"prompt_n"`
	TTFTMs  float64 `json:"ttft_ms"`
}

type benchReport struct {
	Results []benchResult `json:"results"`
	Perf    llama.Perf    `json:"llama_perf"`
	Reuse   []reuseTurn   `json:"cache_reuse,omitempty"`
	Vs      []vsRow       `json:"vs_llama_bench,omitempty"`
	Roof    *roofline     `json:"roofline,omitempty"`
	Server  *serverReport `json:"vs_llama_server,omitempty"`
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f benchFlags
	fs := newFlagSet("bench", stderr)
	f.register(fs)
	f.registerBench(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	m, err := f.load(ctx, stderr, false)
	if err != nil {
		return err
	}
	defer m.Close()
	rep, err := bench(ctx, m, f)
	if err != nil {
		return err
	}
	if f.vs != "" {
		if rep.Vs, err = benchVs(ctx, m, f, f.vs); err != nil {
			return err
		}
	}
	if f.vsServer != "" {
		if rep.Server, err = benchServer(ctx, m, f, f.vsServer, stderr); err != nil {
			return err
		}
	}
	if f.roofline {
		if rep.Roof, err = measureRoofline(m, f.threads, rep.Results); err != nil {
			return err
		}
	}
	if f.jsonOut {
		return writeJSON(stdout, rep)
	}
	printBench(stdout, rep)
	return nil
}

// registerBench adds loop bench's own flags to fs.
func (f *benchFlags) registerBench(fs *pflag.FlagSet) {
	fs.IntVarP(&f.nPrompt, "n-prompt", "p", 512, "prompt tokens of the pp test (0: skip)")
	fs.IntVarP(&f.nGen, "n-gen", "n", 128, "generated tokens of the tg test (0: skip)")
	fs.IntVarP(&f.threads, "threads", "t", defaultThreads(), "threads")
	fs.IntVarP(&f.reps, "repetitions", "r", 3, "repetitions of each test")
	fs.IntVarP(&f.batch, "batch-size", "b", 2048, "n_batch")
	fs.IntVar(&f.ubatch, "ubatch-size", 512, "n_ubatch")
	fs.StringVar(&f.flashAttn, "flash-attn", "off", "flash attention: auto, on or off (off, as llama-bench defaults)")
	fs.StringVar(&f.cacheK, "cache-type-k", "f16", "K cache type: "+strings.Join(llama.CacheTypes(), ", ")+" (llama-bench's -ctk)")
	fs.StringVar(&f.cacheV, "cache-type-v", "f16", "V cache type, as --cache-type-k; a quantized one needs --flash-attn on (llama-bench's -ctv)")
	fs.IntVar(&f.turns, "turns", 6, "turns of the cache-reuse conversation")
	fs.IntVar(&f.turnTokens, "turn-tokens", 96, "about this many tokens per user message in the conversation")
	fs.IntVar(&f.coldEvery, "cold-every", 1, "time the cold prefill every this many turns, and the last (a long session's cold turns dominate the run)")
	fs.BoolVar(&f.noReuse, "no-reuse", false, "skip the cache-reuse scenario")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	fs.BoolVar(&f.roofline, "roofline", false, "measure memory bandwidth (a copy) and F32 matmul GFLOP/s (ggml's kernels), and show tg and pp as shares of those bounds")
	fs.StringVar(&f.vs, "vs", "", "also run llama.cpp's llama-bench at this path on the same model and settings, interleaved with ours, and print the ratios")
	fs.StringVar(&f.vsServer, "vs-server", "", "also run llama.cpp's llama-server at this path on the same model and threads, plain and with each n-gram --spec-type (kept for the bench, and started afresh for each request), interleaved with loop plain and drafting up to --draft-max (16 if unset) on the edit, text and edit-call prompts and on the edit call under the agent's call grammar (sent to both), and print decode t/s, acceptance and the ratios")
	fs.IntVar(&f.draftMax, "draft-max", 0, "also time n-gen tokens of a file edit (greedy), of prose (sampled), and of the agent's edit call and answer after a read (greedy, with a chat template), plain and drafting up to this many tokens by prompt lookup and from what the step read, then the edit-call step as loop run ships it (the step rows: agent/local clients, the call grammar, the agent's sampling, the reply ending where the model ends it) (0: skip)")
	fs.BoolVar(&f.grammar, "grammar", false, "also time n-gen greedy tokens under the agent's call grammar: none, lazy, required, each exact and rejection-first, and required grammar-first")
}

// check refuses flag values no test can run with, and checks the peer
// server's path when --vs-server names one.
func (f *benchFlags) check() error {
	if f.reps < 1 || f.threads < 1 || f.nPrompt < 0 || f.nGen < 0 || f.draftMax < 0 {
		return usagef("repetitions and threads must be positive, token counts not negative")
	}
	for _, t := range []string{f.cacheK, f.cacheV} {
		if !slices.Contains(llama.CacheTypes(), strings.ToLower(t)) {
			return usagef("KV cache type %q: want one of %s", t, strings.Join(llama.CacheTypes(), ", "))
		}
	}
	if f.vsServer != "" {
		if err := checkServer(f.vsServer, f); err != nil {
			return err
		}
	}
	return nil
}

func bench(ctx context.Context, m *llama.Model, f benchFlags) (*benchReport, error) {
	in, err := m.Info()
	if err != nil {
		return nil, err
	}
	var backends []string
	for _, d := range llama.Devices() {
		if d.Type != "cpu" || len(backends) == 0 {
			backends = append(backends, strings.TrimRight(d.Name, "0123456789"))
		}
	}
	base := benchResult{Model: in.Description, Size: in.SizeBytes, Params: in.Params,
		Backend: strings.Join(backends, ","), Threads: f.threads,
		TypeK: strings.ToLower(f.cacheK), TypeV: strings.ToLower(f.cacheV)}
	rep := &benchReport{}
	if f.nPrompt > 0 || f.nGen > 0 {
		if err := benchSpeed(ctx, m, f, base, rep); err != nil {
			return nil, err
		}
	}
	if f.draftMax > 0 && f.nGen > 0 {
		if err := benchDraft(ctx, m, f, base, rep); err != nil {
			return nil, err
		}
	}
	if f.grammar && f.nGen > 0 {
		if err := benchGrammar(ctx, m, f, base, rep); err != nil {
			return nil, err
		}
	}
	if !f.noReuse && f.turns > 0 {
		c, err := f.context(m, min(in.TrainContext, max(4096, f.turns*(f.turnTokens*2+128))))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		if rep.Reuse, err = benchReuse(ctx, c, m, f.turns, f.turnTokens, max(f.coldEvery, 1)); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// greedySlot makes a context of size tokens, its first slot and a greedy
// chain; close releases the context and the chain.
func (f *benchFlags) greedySlot(m *llama.Model, size int) (slot *llama.Slot, greedy *llama.Sampler, close func(), err error) {
	c, err := f.context(m, size)
	if err != nil {
		return nil, nil, nil, err
	}
	if slot, err = llama.NewSlot(c, 0); err == nil {
		greedy, err = newGreedy()
	}
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	return slot, greedy, func() { greedy.Close(); c.Close() }, nil
}

// newGreedy returns a chain of the greedy sampler.
func newGreedy() (*llama.Sampler, error) {
	greedy := llama.NewChain(true)
	if err := greedy.Add(llama.NewGreedy()); err != nil {
		greedy.Close()
		return nil, err
	}
	return greedy, nil
}

func (f *benchFlags) context(m *llama.Model, size int) (*llama.Context, error) {
	return llama.NewContext(m, llama.ContextParams{
		ContextSize: size, BatchSize: f.batch, UBatchSize: f.ubatch,
		Threads: f.threads, BatchThreads: f.threads, FlashAttention: f.flashAttn,
		CacheTypeK: f.cacheK, CacheTypeV: f.cacheV,
	})
}

// benchSpeed runs the pp and tg tests as llama-bench does: a warm-up run,
// then f.reps timed runs, each into an empty cache of n_prompt + n_gen.
func benchSpeed(ctx context.Context, m *llama.Model, f benchFlags, base benchResult, rep *benchReport) error {
	c, err := f.context(m, max(f.nPrompt+f.nGen, 512))
	if err != nil {
		return err
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name      string
		n, prompt int
		run       func() error
	}{
		{fmt.Sprintf("pp%d", f.nPrompt), f.nPrompt, f.nPrompt, func() error { return benchPrompt(ctx, c, m, rng, f.nPrompt) }},
		{fmt.Sprintf("tg%d", f.nGen), f.nGen, 0, func() error { return benchGen(ctx, c, m, rng, f.nGen) }},
	}
	for _, test := range tests {
		if test.n == 0 {
			continue
		}
		r := base
		r.Test, r.NPrompt, r.NGen = test.name, test.prompt, test.n-test.prompt
		for i := -1; i < f.reps; i++ { // i == -1 is the warm-up
			if err := c.ClearMemory(false); err != nil {
				return err
			}
			if i == 0 {
				c.ResetPerf()
			}
			start := time.Now()
			if err := test.run(); err != nil {
				return err
			}
			if i >= 0 {
				r.Samples = append(r.Samples, float64(test.n)/time.Since(start).Seconds())
			}
		}
		r.AvgTS, r.StdevTS = meanStdev(r.Samples)
		rep.Results = append(rep.Results, r)
		// llama.cpp counts multi-token decodes as prompt work and single
		// tokens as generation (and reports an empty count as 1).
		if p := c.Perf(); test.prompt > 0 {
			rep.Perf.PromptMs, rep.Perf.PromptTokens = p.PromptMs, p.PromptTokens
		} else {
			rep.Perf.EvalMs, rep.Perf.EvalTokens = p.EvalMs, p.EvalTokens
		}
	}
	return nil
}

// firstToken is BOS when the model adds one, else a random token, as in
// llama-bench.
func firstToken(m *llama.Model, rng *rand.Rand) llama.Token {
	if m.AddBOS() && m.BOS() >= 0 {
		return m.BOS()
	}
	return llama.Token(rng.IntN(m.VocabSize()))
}

// benchPrompt decodes n random tokens in n_batch chunks (llama-bench's
// test_prompt).
func benchPrompt(ctx context.Context, c *llama.Context, m *llama.Model, rng *rand.Rand, n int) error {
	toks := make([]llama.Token, n)
	toks[0] = firstToken(m, rng)
	for i := 1; i < n; i++ {
		toks[i] = llama.Token(rng.IntN(m.VocabSize()))
	}
	_, err := c.DecodeTokens(ctx, 0, 0, toks, true)
	return err
}

// benchGen decodes n tokens one at a time (llama-bench's test_gen).
func benchGen(ctx context.Context, c *llama.Context, m *llama.Model, rng *rand.Rand, n int) error {
	tok := firstToken(m, rng)
	for i := range n {
		if _, err := c.DecodeTokens(ctx, 0, i, []llama.Token{tok}, true); err != nil {
			return err
		}
		tok = llama.Token(rng.IntN(m.VocabSize()))
	}
	return nil
}

func meanStdev(xs []float64) (float64, float64) {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

func printBench(w io.Writer, rep *benchReport) {
	fmt.Fprintf(w, "| %-30s | %10s | %10s | %-10s | %7s | %15s | %20s |\n", "model", "size", "params", "backend", "threads", "test", "t/s")
	fmt.Fprintf(w, "| %s | %s: | %s: | %s | %s: | %s: | %s: |\n", strings.Repeat("-", 30), strings.Repeat("-", 9),
		strings.Repeat("-", 9), strings.Repeat("-", 10), strings.Repeat("-", 6), strings.Repeat("-", 14), strings.Repeat("-", 19))
	for _, r := range rep.Results {
		fmt.Fprintf(w, "| %-30s | %10s | %10s | %-10s | %7d | %15s | %20s |\n", r.Model, humanBytes(r.Size),
			humanCount(float64(r.Params)), r.Backend, r.Threads, r.Test, fmt.Sprintf("%.2f ± %.2f", r.AvgTS, r.StdevTS))
	}
	printDraft(w, rep)
	printGrammar(w, rep)
	p := rep.Perf
	if p.PromptMs > 0 || p.EvalMs > 0 {
		fmt.Fprintf(w, "\nllama.cpp's own counters (llama_perf_context) over the timed runs: prompt %d tokens in %.2f ms (%.2f t/s), eval %d tokens in %.2f ms (%.2f t/s)\n",
			p.PromptTokens, p.PromptMs, perSec(p.PromptTokens, p.PromptMs), p.EvalTokens, p.EvalMs, perSec(p.EvalTokens, p.EvalMs))
	}
	if len(rep.Vs) > 0 {
		printVs(w, rep.Vs, rep.Results[0].Threads)
	}
	if rep.Server != nil {
		rep.Server.print(w)
	}
	if rep.Roof != nil {
		rep.Roof.print(w)
	}
	if len(rep.Reuse) == 0 {
		return
	}
	fmt.Fprintf(w, "\ncache reuse: one conversation grown turn by turn; cold clears the slot before the turn, warm keeps it\n")
	fmt.Fprintf(w, "| %4s | %6s | %10s | %10s | %12s | %10s | %10s | %12s | %9s |\n", "turn", "prompt", "cold cache", "cold new", "cold ttft ms", "warm cache", "warm new", "warm ttft ms", "warm/cold")
	fmt.Fprintf(w, "| ---: | -----: | ---------: | ---------: | -----------: | ---------: | ---------: | -----------: | --------: |\n")
	for _, t := range rep.Reuse {
		cold := [3]string{"-", "-", "-"}
		ratio := "-"
		if t.Cold.TTFTMs > 0 {
			cold = [3]string{fmt.Sprint(t.Cold.CacheN), fmt.Sprint(t.Cold.PromptN), fmt.Sprintf("%.1f", t.Cold.TTFTMs)}
			ratio = fmt.Sprintf("%.1f%%", 100*t.Warm.TTFTMs/t.Cold.TTFTMs)
		}
		fmt.Fprintf(w, "| %4d | %6d | %10s | %10s | %12s | %10d | %10d | %12.1f | %9s |\n", t.Turn, t.Prompt,
			cold[0], cold[1], cold[2], t.Warm.CacheN, t.Warm.PromptN, t.Warm.TTFTMs, ratio)
	}
}

func perSec(n int, ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	return float64(n) / ms * 1000
}

// benchReuse grows a chat turn by turn. Each turn's prompt is the previous
// prompt, the assistant's reply and a new user message. For each turn it
// measures the time to first token (prefill plus one sample) twice: cold,
// with the slot cleared first, and warm, with the slot still holding the
// previous turn and its reply, as an agent loop leaves it. The cold
// measure is taken every coldEvery turns and on the last one; a turn
// without it has Cold.TTFTMs 0. Warm then needs the slot to hold the
// previous turn, so after a cold measure the slot is what the cold prefill
// left, which is the same tokens.
func benchReuse(ctx context.Context, c *llama.Context, m *llama.Model, turns, turnTokens, coldEvery int) ([]reuseTurn, error) {
	greedy, err := newGreedy()
	if err != nil {
		return nil, err
	}
	defer greedy.Close()
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		return nil, err
	}
	conv := newConversation(turnTokens)
	var out []reuseTurn
	var prompt []llama.Token
	for turn := 1; turn <= turns; turn++ {
		text := conv.next(turn)
		add, err := m.Tokenize(text, turn == 1, true)
		if err != nil {
			return nil, err
		}
		prompt = append(prompt, add...)
		if len(prompt)+conv.replyTokens >= c.SeqSize() {
			break
		}
		t := reuseTurn{Turn: turn, Prompt: len(prompt)}
		// Warm first: the slot still holds the previous turn and its reply.
		// Then cold: the same prompt into a cleared slot.
		if t.Warm, err = timeFirstToken(ctx, slot, greedy, prompt); err != nil {
			return nil, err
		}
		last := turn == turns || len(prompt)+conv.replyTokens+turnTokens*2 >= c.SeqSize()
		if turn%coldEvery == 0 || last {
			if err := slot.Clear(); err != nil {
				return nil, err
			}
			if t.Cold, err = timeFirstToken(ctx, slot, greedy, prompt); err != nil {
				return nil, err
			}
		}
		// The assistant replies: its tokens are decoded one by one into the
		// slot and become part of the next prompt.
		reply, err := m.Tokenize(conv.reply(turn), false, true)
		if err != nil {
			return nil, err
		}
		for _, tok := range reply[:len(reply)-1] {
			if err := slot.Append(ctx, tok); err != nil {
				return nil, err
			}
		}
		prompt = append(prompt, reply...)
		out = append(out, t)
	}
	return out, nil
}

// timeFirstToken prefills prompt into slot, reusing what it holds, and
// samples one token: the time to first token of a turn.
func timeFirstToken(ctx context.Context, slot *llama.Slot, greedy *llama.Sampler, prompt []llama.Token) (turnMeasures, error) {
	start := time.Now()
	st, err := slot.Prefill(ctx, prompt)
	if err != nil {
		return turnMeasures{}, err
	}
	if _, err := greedy.Sample(slot.Context(), -1); err != nil {
		return turnMeasures{}, err
	}
	return turnMeasures{CacheN: st.CacheN, PromptN: st.PromptN, TTFTMs: float64(time.Since(start).Microseconds()) / 1000}, nil
}

// conversation writes deterministic ChatML-shaped turns of a coding session.
type conversation struct {
	words       int
	replyTokens int
}

func newConversation(turnTokens int) *conversation {
	return &conversation{words: max(turnTokens*3/4, 8), replyTokens: 64}
}

var filler = strings.Fields(`the test in order_test.go fails because total returns 27 instead of 30;
read the file, find the loop over items, check the discount rule, edit the condition, and run go test ./... again
until it passes. func total(items []Item) int { sum := 0; for _, it := range items { sum += it.Price * it.Qty } return sum }`)

func (cv *conversation) next(turn int) string {
	var b strings.Builder
	if turn == 1 {
		b.WriteString("<|im_start|>system\nYou are loop, a coding agent. Use the tools to read, edit and run code.<|im_end|>\n")
	}
	fmt.Fprintf(&b, "<|im_start|>user\nStep %d: ", turn)
	for i := range cv.words {
		b.WriteString(filler[(turn*7+i)%len(filler)])
		b.WriteByte(' ')
	}
	b.WriteString("<|im_end|>\n<|im_start|>assistant\n")
	return b.String()
}

func (cv *conversation) reply(turn int) string {
	return fmt.Sprintf("<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\": \"go test ./... -run Test%d\"}}\n</tool_call><|im_end|>\n", turn)
}
