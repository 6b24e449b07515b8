package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/loopagent/loop/agent/train"
	"github.com/loopagent/loop/llama"
)

// `loop train` finetunes every weight of a qwen2 model on chats:
//
//	loop train -m BASE.gguf --data chats.jsonl -o OUT.gguf [--epochs N] [--ctx N] [--lr F] [--seed S] [-t N] [--val F] [--train-all] [--shared-prefix=false] [--prefix-every N] [--prefix-share F] [--checkpoint DIR] [--resume DIR] [--stop-after N]
//
// Each line of the data is one chat in the OpenAI form,
// {"messages": [...], "tools": [...]}. The work is agent/train's (its doc
// says what trains, how the chats become windows and what the shared
// prefix is); this file binds the flags to a train.Config, loads the
// model's vocabulary, and prints. The base must be a qwen2 GGUF with F32
// weights: llama.Trainer runs loop's own training graph, since llama.cpp's
// can only train the output head. Ctrl-C stops between windows and writes
// nothing; the output is the base file with its tensors replaced, written
// to a temporary file and renamed. A long run checkpoints each epoch into
// a folder (--checkpoint) and, stopped, goes on from there (--resume) to
// the same output, bit for bit; agent/train's checkpoint.go says what a
// checkpoint holds and when one is refused.

type trainFlags struct {
	modelFlags
	data      string
	out       string
	epochs    int
	stopAfter int
	ctxSize   int
	lr        float64
	seed      uint64
	threads   int
	val       float64
	trainAll  bool
	pretrain  int
	fill      bool
	schedule  string
	jsonOut   bool
	prefix    bool
	// prefixEvery is how many steps the prefix's keys and values serve.
	prefixEvery int
	// prefixShare widens each chat's prefix to a start this share of the
	// chats have (train.Config.PrefixShare).
	prefixShare float64
	checkpoint  string // the folder to checkpoint into after each epoch
	resume      string // the checkpoint folder to go on from
}

// trainReport is what `loop train --json` prints: the package's report and
// the file written.
type trainReport struct {
	train.Report
	Output      string `json:"output"`
	ResumedFrom string `json:"resumed_from,omitempty"` // --resume
	ResumedAt   int    `json:"resumed_at,omitempty"`   // the epochs the checkpoint had done
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
	fs.IntVar(&f.stopAfter, "stop-after", 0, "end after epoch N of the --epochs schedule (the learning rate follows the whole schedule); --resume from its checkpoint without it goes on to the end")
	fs.IntVar(&f.pretrain, "pretrain-epochs", 0, "the first N epochs train on every token of the chats after the shared prefix (the task, code, results), the rest on the assistant's; the held-out loss stays the assistant's")
	fs.StringVar(&f.schedule, "lr-schedule", "cosine", "cosine: warm up over the first 5% of the steps, then decay to a tenth of --lr by the last; constant: --lr throughout")
	fs.BoolVar(&f.prefix, "shared-prefix", true, "run the tokens every chat starts with (system prompt, tool schemas: no target) forward only, once per window: faster; no gradient flows back through their keys and values")
	fs.Float64Var(&f.prefixShare, "prefix-share", 0, "with --shared-prefix, run forward only the longest start of each chat (before its first target) that at least this share of the chats begin with, such as the system prompt and tools of each tool set; 0: only what every chat begins with")
	fs.IntVar(&f.prefixEvery, "prefix-every", 1, "with --shared-prefix, compute the prefix's keys and values once per N optimizer steps and reuse them in between (up to N-1 steps old); 1: every step, exact")
	fs.BoolVar(&f.fill, "fill", false, "fill every window to --ctx with the start of the next chat, as llama.cpp's datasets do (default: whole chats only)")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "after each epoch, write the weights, AdamW's state and a manifest (recipe, data hash, losses) into `DIR`, in place of the epoch before; a folder that holds another run's checkpoint is refused")
	fs.StringVar(&f.resume, "resume", "", "go on from the last epoch checkpointed in `DIR`, with the same -m, --data and flags: the output and the losses are those of a run never stopped, bit for bit (with the same -t); checkpoints go on into DIR unless --checkpoint names another folder")
	fs.BoolVar(&f.jsonOut, "json", false, "print the report as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	chats, err := train.ReadChats(f.data)
	if err != nil {
		return err
	}
	m, err := f.load(ctx, stderr, true) // the vocabulary and template; the Trainer reads the weights
	if err != nil {
		return err
	}
	defer m.Close()
	cfg := f.config()
	tr, err := llama.NewTrainer(ctx, f.model, cfg.TrainParams())
	if err != nil {
		return err
	}
	defer tr.Close()
	plan, err := train.Prepare(m, chats, cfg)
	if err != nil {
		return f.hint(err)
	}
	var rep trainReport
	if f.resume != "" {
		man, err := plan.Resume(ctx, tr, f.resume)
		if err != nil {
			return err
		}
		rep.ResumedFrom, rep.ResumedAt = f.resume, man.Epoch
	}
	return f.train(ctx, tr, plan, rep, stdout, stderr)
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
	case f.stopAfter < 0 || f.stopAfter > f.epochs:
		return usagef("--stop-after %d: want 0 to --epochs (%d)", f.stopAfter, f.epochs)
	case !(f.prefixShare >= 0 && f.prefixShare <= 1):
		return usagef("--prefix-share %v: want a fraction in [0, 1]", f.prefixShare)
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

// config is the checked flags as a train.Config.
func (f *trainFlags) config() train.Config {
	return train.Config{
		Window: f.ctxSize, Epochs: f.epochs, PretrainEpochs: f.pretrain,
		LearningRate: f.lr, Schedule: train.Schedule(f.schedule), Seed: f.seed,
		HeldOut: f.val, TrainAll: f.trainAll, Fill: f.fill,
		NoSharedPrefix: !f.prefix, PrefixEvery: f.prefixEvery, PrefixShare: f.prefixShare,
		Threads: max(f.threads, 0), Checkpoint: cmp.Or(f.checkpoint, f.resume), StopAfter: f.stopAfter,
	}
}

// hint adds the flag that fixes a chat the package refuses.
func (f *trainFlags) hint(err error) error {
	switch {
	case errors.Is(err, train.ErrChatTooLong):
		return fmt.Errorf("%w (--ctx %d); raise --ctx or split the chat", err, f.ctxSize)
	case errors.Is(err, train.ErrReplyNotFound):
		return fmt.Errorf("%w; pass --train-all", err)
	}
	return err
}

// printPlan prints the plan's counts, its forward-only prefixes, and where
// it resumed from.
func (f *trainFlags) printPlan(stdout io.Writer, plan *train.Plan, out trainReport) {
	of := "whole chats, at most"
	if f.fill {
		of = "full"
	}
	r := plan.Report
	fmt.Fprintf(stdout, "%d chats (%d tokens, %d trained), %d held out; %d training and %d held-out windows (%s %d tokens)\n",
		r.Chats, r.Tokens, r.Trained, r.HeldOut, len(plan.Train), len(plan.Eval), of, f.ctxSize)
	if r.Prefix > 0 {
		fmt.Fprintf(stdout, "the first %d tokens of every chat are the same and train nothing: they run forward only (--shared-prefix)\n", r.Prefix)
	}
	if r.Forward > 0 {
		fmt.Fprintf(stdout, "with the starts that %g of the chats share: %d tokens of the windows run forward only (--prefix-share)\n", f.prefixShare, r.Forward)
	}
	if out.ResumedFrom != "" {
		fmt.Fprintf(stdout, "resumed from %s at epoch %d\n", out.ResumedFrom, out.ResumedAt)
	}
}

// train runs the plan, printing its counts and each epoch, then saves.
// out holds where the plan resumed from, if it did.
func (f *trainFlags) train(ctx context.Context, tr *llama.Trainer, plan *train.Plan, out trainReport, stdout, stderr io.Writer) error {
	if !f.jsonOut {
		f.printPlan(stdout, plan, out)
	}
	var bar *progressBar
	epoch := 0 // the epoch running, from 1; 0 before the first
	h := train.Hooks{
		EpochStart: func(e int) {
			epoch = e
			bar = newProgressBar(stderr, fmt.Sprintf("epoch %d/%d", e, f.epochs), len(plan.Train)+len(plan.Eval))
		},
		Window: func(p train.Progress) {
			what := "loss"
			if p.Eval {
				what = "held-out loss"
			}
			bar.describe(fmt.Sprintf("epoch %d/%d %s %.4f", p.Epoch, f.epochs, what, p.Mean))
			bar.set(p.Done)
		},
		EpochEnd: func(ep train.Epoch) {
			bar.done()
			bar = nil
			if !f.jsonOut {
				f.printEpoch(stdout, ep)
			}
		},
	}
	if !f.jsonOut {
		h.BeforeTraining = func(loss float64) { fmt.Fprintf(stdout, "held-out loss before training: %.4f\n", loss) }
	}
	rep, err := plan.Run(ctx, tr, h)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		if epoch > 0 && errors.Is(err, context.Canceled) {
			resume, dir := "", cmp.Or(f.checkpoint, f.resume)
			if epoch-1 <= out.ResumedAt { // no checkpoint written by this run yet
				dir = f.resume
			}
			if dir != "" && epoch > 1 {
				resume = fmt.Sprintf(" (--resume %s goes on after epoch %d)", dir, epoch-1)
			}
			fmt.Fprintf(stderr, "loop train: interrupted in epoch %d; %s was not written%s\n", epoch, f.out, resume)
		}
		return err
	}
	if err := tr.SaveFile(ctx, f.out); err != nil {
		return err
	}
	if f.jsonOut {
		out.Report, out.Output = rep, f.out
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "wrote %s\n", f.out)
	return nil
}

// printEpoch prints an epoch's line: its losses and time.
func (f *trainFlags) printEpoch(stdout io.Writer, ep train.Epoch) {
	every := ""
	if ep.AllTokens {
		every = " (every token)"
	}
	fmt.Fprintf(stdout, "epoch %d/%d: train loss%s %.4f", ep.Epoch, f.epochs, every, ep.TrainLoss)
	if ep.EvalWindows > 0 {
		fmt.Fprintf(stdout, ", held-out loss %.4f", ep.EvalLoss)
	}
	fmt.Fprintf(stdout, " (%.1f s)\n", ep.Seconds)
}

// describe changes the bar's text.
func (p *progressBar) describe(desc string) {
	p.desc = desc
	if p.bar != nil {
		p.bar.Describe(desc)
	}
}
