package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/llama"
)

// `loop train` finetunes every weight of a qwen2 model on chats:
//
//	loop train -m BASE.gguf --data chats.jsonl -o OUT.gguf [--epochs N] [--ctx N] [--lr F] [--seed S] [-t N] [--val F] [--train-all] [--shared-prefix=false] [--prefix-every N]
//
// Each line of the data is one chat in the OpenAI form,
// {"messages": [...], "tools": [...]}, with the assistant's tool_calls and
// the tool results; an assistant message with "weight": 0 (OpenAI's
// fine-tuning format) is context, not trained. A chat is rendered whole, without a generation prompt,
// with the model's own template in the call format `loop chat` uses, so the
// model learns the prompt it will be given. The chats are shuffled by
// --seed, --val of them are held out, and each part is packed into windows
// of whole chats, at most --ctx tokens (llama.PackWhole: the start of a
// chat cut at a window's end is its system prompt and tools, which train
// nothing and cost attention), or, with --fill, into full windows as
// llama.cpp's datasets are (llama.PackWindows). The loss, trained and held out, is
// over the assistant's tokens only (train_mask.go says how they are
// found), or every token with --train-all. --pretrain-epochs N trains the
// first N epochs on every token (after the shared prefix, below): the
// assistant's tokens are a few percent of a chat, and the rest (the task,
// the code, the results) teaches JSON, Go and copying at little extra cost
// per window; the held-out loss is the assistant's throughout. The tokens every chat starts with and trains
// nothing on (the system prompt and tool schemas, about 1,000 tokens of the
// demo's 1,500-token chats) run forward only in each window, and the rest
// attends to their keys and values (llama.Window.Prefix); without a
// backward pass through them, an epoch takes about a third of the time.
// --shared-prefix=false trains through them too. --prefix-every N computes
// those keys and values once per N optimizer steps and lets the windows in
// between attend to them (up to N-1 steps old): the prefix's forward pass
// was about a fifth of a window's time (the demo trains with 4). The base must be a qwen2 GGUF
// with F32 weights: llama.Trainer runs loop's own training graph, since
// llama.cpp's can only train the output head. Ctrl-C stops between windows
// and writes nothing; the output is the base file with its tensors
// replaced, written to a temporary file and renamed.

type trainFlags struct {
	modelFlags
	data     string
	out      string
	epochs   int
	ctxSize  int
	lr       float64
	seed     uint64
	threads  int
	val      float64
	trainAll bool
	pretrain int
	fill     bool
	schedule string
	jsonOut  bool
	prefix   bool
	// prefixEvery is how many steps the prefix's keys and values serve.
	prefixEvery int
}

// trainChat is one line of the data.
type trainChat struct {
	Messages json.RawMessage `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
	line     int             // in the data file, from 1
}

// trainEpoch is one epoch's line of the report.
type trainEpoch struct {
	Epoch        int     `json:"epoch"`
	TrainLoss    float64 `json:"train_loss"`
	TrainWindows int     `json:"train_windows"`
	EvalLoss     float64 `json:"eval_loss,omitempty"`
	EvalWindows  int     `json:"eval_windows,omitempty"`
	AllTokens    bool    `json:"all_tokens,omitempty"` // trained on every token (--pretrain-epochs)
	Seconds      float64 `json:"seconds"`
}

// trainReport is what `loop train --json` prints.
type trainReport struct {
	Chats   int          `json:"chats"`
	HeldOut int          `json:"held_out_chats"`
	Tokens  int          `json:"tokens"`
	Trained int          `json:"trained_tokens"`
	Window  int          `json:"window"`
	Prefix  int          `json:"shared_prefix"`
	Before  float64      `json:"eval_loss_before,omitempty"`
	Epochs  []trainEpoch `json:"epochs"`
	Output  string       `json:"output"`
}

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f trainFlags
	fs := newFlagSet("train", stderr)
	f.register(fs)
	fs.StringVar(&f.data, "data", "", "training chats, one JSON object per line: {\"messages\": [...], \"tools\": [...]}")
	fs.StringVarP(&f.out, "output", "o", "", "the trained model's GGUF file")
	fs.IntVar(&f.epochs, "epochs", 1, "passes over the training chats")
	fs.IntVarP(&f.ctxSize, "ctx-size", "c", 1024, "window of one datapoint in tokens (it may exceed the base's context); a chat must fit one")
	fs.IntVar(&f.ctxSize, "ctx", 1024, "short for --ctx-size")
	fs.Float64Var(&f.lr, "lr", 1e-4, "AdamW learning rate (the peak, with the cosine schedule)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the shuffle and the held-out split")
	fs.IntVarP(&f.threads, "threads", "t", -1, "threads (-1: the physical cores)")
	fs.Float64Var(&f.val, "val", 0.1, "fraction of the chats held out to measure the loss on")
	fs.BoolVar(&f.trainAll, "train-all", false, "train on every token, not only the assistant's")
	fs.IntVar(&f.pretrain, "pretrain-epochs", 0, "the first N epochs train on every token of the chats after the shared prefix (the task, code, results), the rest on the assistant's; the held-out loss stays the assistant's")
	fs.StringVar(&f.schedule, "lr-schedule", "cosine", "cosine: warm up over the first 5% of the steps, then decay to a tenth of --lr by the last; constant: --lr throughout")
	fs.BoolVar(&f.prefix, "shared-prefix", true, "run the tokens every chat starts with (system prompt, tool schemas: no target) forward only, once per window: faster; no gradient flows back through their keys and values")
	fs.IntVar(&f.prefixEvery, "prefix-every", 1, "with --shared-prefix, compute the prefix's keys and values once per N optimizer steps and reuse them in between (up to N-1 steps old); 1: every step, exact")
	fs.BoolVar(&f.fill, "fill", false, "fill every window to --ctx with the start of the next chat, as llama.cpp's datasets do (default: whole chats only)")
	fs.BoolVar(&f.jsonOut, "json", false, "print the report as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	chats, err := readTrainData(f.data)
	if err != nil {
		return err
	}
	m, err := f.load(ctx, stderr, true) // the vocabulary and template; the Trainer reads the weights
	if err != nil {
		return err
	}
	defer m.Close()
	tr, err := llama.NewTrainer(ctx, f.model, llama.TrainParams{ContextSize: f.ctxSize, AllowBeyondTrained: true,
		LearningRate: f.lr, Threads: max(f.threads, 0), PrefixEvery: f.prefixEvery})
	if err != nil {
		return err
	}
	defer tr.Close()
	docs, err := renderChats(m, f.data, chats, f.ctxSize, f.trainAll)
	if err != nil {
		return err
	}
	return f.train(ctx, m, tr, docs, stdout, stderr)
}

// check refuses flag values before the model loads.
func (f *trainFlags) check() error {
	switch {
	case f.model == "":
		return usagef("no model: pass -m BASE.gguf")
	case f.data == "":
		return usagef("no data: pass --data FILE.jsonl")
	case f.out == "":
		return usagef("no output: pass -o OUT.gguf")
	case f.epochs < 1:
		return usagef("--epochs %d: want 1 or more", f.epochs)
	case f.schedule != "cosine" && f.schedule != "constant":
		return usagef("--lr-schedule %q: want cosine or constant", f.schedule)
	case f.pretrain < 0 || f.pretrain > f.epochs:
		return usagef("--pretrain-epochs %d: want 0 to --epochs (%d)", f.pretrain, f.epochs)
	case f.prefixEvery < 1:
		return usagef("--prefix-every %d: want 1 or more", f.prefixEvery)
	case f.ctxSize < 16:
		return usagef("--ctx %d: want 16 or more", f.ctxSize)
	case !(f.lr > 0) || math.IsInf(f.lr, 0):
		return usagef("--lr %v: want a positive number", f.lr)
	case !(f.val >= 0 && f.val < 1):
		return usagef("--val %v: want a fraction in [0, 1)", f.val)
	case f.threads < -1 || f.threads == 0 || f.threads > llama.MaxThreads:
		return usagef("-t %d: want -1 (the physical cores) or 1..%d", f.threads, llama.MaxThreads)
	}
	if abs, err := filepath.Abs(f.out); err == nil {
		if m, err := filepath.Abs(f.model); err == nil && m == abs {
			return usagef("-o %s is the base model; write the trained one elsewhere", f.out)
		}
	}
	return nil
}

// readTrainData reads the chats, one per non-empty line; an error names
// the line.
func readTrainData(path string) ([]trainChat, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var chats []trainChat
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		c := trainChat{line: line}
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(c.Messages) == 0 {
			return nil, fmt.Errorf("%s:%d: no \"messages\"", path, line)
		}
		chats = append(chats, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(chats) == 0 {
		return nil, fmt.Errorf("%s: no chats", path)
	}
	return chats, nil
}

// trainDoc is one rendered and tokenized chat.
type trainDoc struct {
	line    int
	tokens  []llama.Token
	targets []bool // the tokens trained; nil for all
}

// renderChats renders each chat whole with the model's template (its
// tool_use variant when the chat has tools) in the detected call format,
// tokenizes it as `loop chat` does and marks the assistant's tokens
// (all of them with all). A chat that does not fit a window is refused,
// naming its line: a window never starts inside a chat.
func renderChats(m *llama.Model, path string, chats []trainChat, window int, all bool) ([]trainDoc, error) {
	var tf templateFlags
	tmpls := map[bool]*chat.Template{}
	docs := make([]trainDoc, 0, len(chats))
	for _, c := range chats {
		line := c.line
		msgs, err := chat.ParseMessages(c.Messages)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		var tools []chat.Tool
		if len(c.Tools) > 0 && string(c.Tools) != "null" {
			if tools, err = chat.ParseTools(c.Tools); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
		}
		withTools := len(tools) > 0
		if tmpls[withTools] == nil {
			if tmpls[withTools], err = tf.template(m, withTools); err != nil {
				return nil, err
			}
		}
		t := tmpls[withTools]
		skip, err := unweighted(c.Messages)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		in := chat.PromptInput{Messages: msgs, Tools: tools, Format: chat.DetectFormat(t).Format}
		doc, err := renderChat(m, t, in, all, skip)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if n := len(doc.tokens) + 1; n > window+1 { // and the separator
			return nil, fmt.Errorf("%s:%d: the chat is %d tokens, more than a window of %d (--ctx %d); raise --ctx or split the chat", path, line, len(doc.tokens), window, window)
		}
		doc.line = line
		docs = append(docs, doc)
	}
	return docs, nil
}

// unweighted returns the indices of the messages with "weight": 0, which
// the chat shows but does not train (OpenAI's fine-tuning format: a
// failed call the conversation recovers from, say). A weight is 0 or 1.
func unweighted(raw json.RawMessage) (map[int]bool, error) {
	var ws []struct {
		Weight *float64 `json:"weight"`
	}
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, err
	}
	skip := map[int]bool{}
	for i, w := range ws {
		switch {
		case w.Weight == nil || *w.Weight == 1:
		case *w.Weight == 0:
			skip[i] = true
		default:
			return nil, fmt.Errorf("message %d: weight %v, want 0 or 1", i, *w.Weight)
		}
	}
	return skip, nil
}

// renderChat renders and tokenizes one chat and marks its assistant's
// tokens (none of them unless all is false; every one otherwise), less
// those of the messages in skip.
func renderChat(m *llama.Model, t *chat.Template, in chat.PromptInput, all bool, skip map[int]bool) (trainDoc, error) {
	p, err := t.RenderPrompt(in)
	if err != nil {
		return trainDoc{}, err
	}
	toks, err := local.Tokenize(m, p.Text)
	if err != nil {
		return trainDoc{}, err
	}
	doc := trainDoc{tokens: toks}
	if all {
		return doc, nil
	}
	spans, err := assistantSpans(t, in, p.Text, skip)
	if err != nil {
		return trainDoc{}, err
	}
	doc.targets, err = tokenTargets(m, toks, p.Text, spans)
	return doc, err
}

// train splits, packs and trains, then saves.
func (f *trainFlags) train(ctx context.Context, m *llama.Model, tr *llama.Trainer, docs []trainDoc, stdout, stderr io.Writer) error {
	rng := rand.New(rand.NewPCG(f.seed, 0x6c6f6f70)) // "loop"
	trainW, evalW, nVal, err := f.split(rng, m, docs)
	if err != nil {
		return err
	}
	rep := trainReport{Chats: len(docs) - nVal, HeldOut: nVal, Window: f.ctxSize, Output: f.out}
	if f.prefix {
		rep.Prefix = sharedPrefix(docs)
		for _, ws := range [][]llama.Window{trainW, evalW} {
			for i := range ws {
				ws[i].Prefix = rep.Prefix
			}
		}
	}
	for _, d := range docs {
		rep.Tokens += len(d.tokens)
		rep.Trained += len(d.tokens)
		if d.targets != nil {
			rep.Trained = rep.Trained - len(d.tokens) + count(d.targets)
		}
	}
	if !f.jsonOut {
		of := "whole chats, at most"
		if f.fill {
			of = "full"
		}
		fmt.Fprintf(stdout, "%d chats (%d tokens, %d trained), %d held out; %d training and %d held-out windows (%s %d tokens)\n",
			rep.Chats, rep.Tokens, rep.Trained, nVal, len(trainW), len(evalW), of, f.ctxSize)
		if rep.Prefix > 0 {
			fmt.Fprintf(stdout, "the first %d tokens of every chat are the same and train nothing: they run forward only (--shared-prefix)\n", rep.Prefix)
		}
	}
	if len(evalW) > 0 {
		st, err := tr.Epoch(ctx, nil, evalW, nil)
		if err != nil {
			return err
		}
		rep.Before = st.EvalLoss
		if !f.jsonOut {
			fmt.Fprintf(stdout, "held-out loss before training: %.4f\n", st.EvalLoss)
		}
	}
	if err := f.runEpochs(ctx, tr, rng, trainW, evalW, &rep, stdout, stderr); err != nil {
		return err
	}
	if err := tr.SaveFile(ctx, f.out); err != nil {
		return err
	}
	if f.jsonOut {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "wrote %s\n", f.out)
	return nil
}

// split shuffles docs with rng, holds --val of them out, and packs each
// part into windows; nVal is the number held out.
func (f *trainFlags) split(rng *rand.Rand, m *llama.Model, docs []trainDoc) (trainW, evalW []llama.Window, nVal int, err error) {
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	nVal = int(math.Round(f.val * float64(len(docs))))
	if f.val > 0 && nVal == 0 && len(docs) > 1 {
		nVal = 1
	}
	nVal = min(nVal, len(docs)-1)
	sep := llama.Token(-1)
	if !m.AddBOS() && m.BOS() >= 0 {
		sep = m.BOS() // Qwen's <|endoftext|>, the document separator it was pretrained with
	}
	if evalW, err = packDocs(docs[:nVal], f.ctxSize, sep, f.fill); err != nil {
		return nil, nil, 0, err
	}
	trainW, err = packDocs(docs[nVal:], f.ctxSize, sep, f.fill)
	return trainW, evalW, nVal, err
}

// runEpochs trains --epochs epochs, the windows shuffled by rng before
// each, the first --pretrain-epochs on every token, and adds each epoch to
// rep.
func (f *trainFlags) runEpochs(ctx context.Context, tr *llama.Trainer, rng *rand.Rand, trainW, evalW []llama.Window, rep *trainReport, stdout, stderr io.Writer) error {
	allW := make([]llama.Window, len(trainW)) // the same windows, every token after the shared prefix a target
	for i, w := range trainW {
		allW[i] = llama.Window{Tokens: w.Tokens, Prefix: w.Prefix}
		if w.Prefix > 0 {
			allW[i].Targets = make([]bool, len(w.Tokens))
			for j := w.Prefix + 1; j < len(w.Tokens); j++ {
				allW[i].Targets[j] = true
			}
		}
	}
	for e := 1; e <= f.epochs; e++ {
		windows := trainW
		if e <= f.pretrain {
			windows = allW
		}
		rng.Shuffle(len(windows), func(i, j int) { windows[i], windows[j] = windows[j], windows[i] })
		ep, err := f.epoch(ctx, tr, e, windows, evalW, len(trainW)*f.epochs, stderr)
		ep.AllTokens = e <= f.pretrain
		if err != nil {
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "loop train: interrupted in epoch %d; %s was not written\n", e, f.out)
			}
			return err
		}
		rep.Epochs = append(rep.Epochs, ep)
		if f.jsonOut {
			continue
		}
		every := ""
		if ep.AllTokens {
			every = " (every token)"
		}
		fmt.Fprintf(stdout, "epoch %d/%d: train loss%s %.4f", e, f.epochs, every, ep.TrainLoss)
		if ep.EvalWindows > 0 {
			fmt.Fprintf(stdout, ", held-out loss %.4f", ep.EvalLoss)
		}
		fmt.Fprintf(stdout, " (%.1f s)\n", ep.Seconds)
	}
	return nil
}

// packDocs packs docs into windows of whole docs, or full windows with
// fill; none for no docs.
func packDocs(docs []trainDoc, window int, sep llama.Token, fill bool) ([]llama.Window, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	ds := make([]llama.Doc, len(docs))
	for i, d := range docs {
		ds[i] = llama.Doc{Tokens: d.tokens, Targets: d.targets}
	}
	if fill {
		return llama.PackWindows(ds, window, sep)
	}
	return llama.PackWhole(ds, window, sep)
}

// sharedPrefix returns how many tokens every doc starts with, before any
// target (a chat's system prompt and tool schemas), rounded down to a
// multiple of 16 so that the rest of a window keeps the graph's products
// in tinyBLAS; a window's first tokens are a doc's first (packDocs), so
// each window can run them forward only (llama.Window.Prefix). 0 when a
// doc trains every token.
func sharedPrefix(docs []trainDoc) int {
	if len(docs) == 0 {
		return 0
	}
	p := len(docs[0].tokens)
	for _, d := range docs {
		if d.targets == nil {
			return 0
		}
		n := 0
		for n < min(p, len(d.tokens)) && d.tokens[n] == docs[0].tokens[n] {
			n++
		}
		p = min(n, len(d.tokens)-2) // a window needs a position after its prefix
		if first := slices.Index(d.targets, true); first >= 0 {
			p = min(p, first-1) // position first-1 predicts the first target
		}
	}
	return max(p, 0) / 16 * 16
}

// count returns how many of bs are set.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// epoch runs one epoch with a progress bar that shows the running loss.
func (f *trainFlags) epoch(ctx context.Context, tr *llama.Trainer, e int, trainW, evalW []llama.Window, steps int, stderr io.Writer) (trainEpoch, error) {
	start := time.Now()
	step := (e - 1) * len(trainW)
	if err := tr.SetLearningRate(f.rate(step, steps)); err != nil {
		return trainEpoch{}, err
	}
	var lrErr error
	bar := newProgressBar(stderr, fmt.Sprintf("epoch %d/%d", e, f.epochs), len(trainW)+len(evalW))
	st, err := tr.Epoch(ctx, trainW, evalW, func(p llama.EpochProgress) {
		done, what := p.Window, "loss"
		if !p.Eval && p.Window < len(trainW) && lrErr == nil {
			lrErr = tr.SetLearningRate(f.rate(step+p.Window, steps))
		}
		if p.Eval {
			done, what = len(trainW)+p.Window, "held-out loss"
		}
		bar.describe(fmt.Sprintf("epoch %d/%d %s %.4f", e, f.epochs, what, p.Mean))
		bar.set(done)
	})
	bar.done()
	if err == nil {
		err = lrErr
	}
	return trainEpoch{Epoch: e, TrainLoss: st.TrainLoss, TrainWindows: st.TrainWindows, EvalLoss: st.EvalLoss,
		EvalWindows: st.EvalWindows, Seconds: time.Since(start).Seconds()}, err
}

// rate is the learning rate of step (from 0) of steps: --lr, or with the
// cosine schedule a linear warm-up from a tenth of --lr over the first 5%
// of the steps, then a cosine from --lr down to a tenth of it at the last.
func (f *trainFlags) rate(step, steps int) float64 {
	if f.schedule == "constant" || steps < 2 {
		return f.lr
	}
	low := f.lr / 10
	warm := max(1, steps/20)
	if step < warm {
		return low + (f.lr-low)*float64(step)/float64(warm)
	}
	x := float64(step-warm) / float64(max(1, steps-1-warm))
	return low + (f.lr-low)*(1+math.Cos(math.Pi*min(x, 1)))/2
}

// describe changes the bar's text.
func (p *progressBar) describe(desc string) {
	p.desc = desc
	if p.bar != nil {
		p.bar.Describe(desc)
	}
}
