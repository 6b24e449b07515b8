package llama

import (
	"context"
	"fmt"
)

// Doc is one tokenized document (a rendered chat) to train on.
type Doc struct {
	Tokens []Token
	// Targets[i] says whether Tokens[i] is a token the model should learn
	// to write (the loss of predicting it counts). nil means every token.
	Targets []bool
}

// Window is one datapoint: Tokens holds the window's positions and one
// more token, the last label; position i predicts Tokens[i+1], and counts
// in the loss when Targets[i+1] is set. Targets is nil (every position) or
// as long as Tokens; Targets[0] is unused.
type Window struct {
	Tokens  []Token
	Targets []bool
	// Prefix is how many of the first positions are a shared context
	// without targets (a chat's system prompt and tool schemas): they are
	// run forward only, and the rest of the window attends to their keys
	// and values as constants. The loss is the same as without; the
	// gradient leaves out what flows back through the prefix's keys and
	// values (as none flows between llama.cpp's ubatches), and a window
	// costs about a third of its prefix's backward pass less. 0: none.
	Prefix int
}

// Positions returns how many positions of w count in the loss.
func (w Window) Positions() int {
	if w.Targets == nil {
		return len(w.Tokens) - 1
	}
	n := 0
	for _, b := range w.Targets[1:] {
		if b {
			n++
		}
	}
	return n
}

// PackWindows packs documents into training windows of n+1 tokens, as
// llama.cpp's common_opt_dataset_init cuts one token stream, with one
// difference: every window starts at the start of a document, so that no
// window trains on the middle of a chat whose system prompt and tools it
// never saw. A window takes whole documents, each followed by sep when sep
// is not negative, and fills its end with the beginning of the next one,
// which then starts the next window; after the last document come the
// first ones again, so the last window is full too. Every token is in a
// window at least once and the documents cut at a window's end twice. The
// separator is a target only in a document whose Targets is nil.
//
// A document longer than a window is refused with ErrContextFull, in an
// *Error whose Subject is "document I" (I counting from 0).
func PackWindows(docs []Doc, n int, sep Token) ([]Window, error) {
	seq, err := packable("pack windows", docs, n, sep)
	if err != nil {
		return nil, err
	}
	var out []Window
	for i := 0; i < len(seq); {
		w := Window{Tokens: make([]Token, 0, n+1), Targets: make([]bool, 0, n+1)}
		j := i
		for len(w.Tokens) < n+1 {
			d := seq[j%len(seq)]
			take := min(len(d.Tokens), n+1-len(w.Tokens))
			w.Tokens = append(w.Tokens, d.Tokens[:take]...)
			w.Targets = append(w.Targets, d.Targets[:take]...)
			if take < len(d.Tokens) {
				break
			}
			j++
		}
		out = append(out, w)
		i = j
	}
	return out, nil
}

// PackWhole packs documents into windows of whole documents, each followed
// by sep when sep is not negative: a window takes documents in order while
// they fit in n+1 tokens, so windows are shorter than n+1 and no document
// is cut. Every token is in exactly one window, and no position is spent
// on the start of a document whose end the window does not hold (for
// chats, a system prompt and tool schemas that train nothing). Documents
// are refused as PackWindows refuses them.
func PackWhole(docs []Doc, n int, sep Token) ([]Window, error) {
	seq, err := packable("pack whole", docs, n, sep)
	if err != nil {
		return nil, err
	}
	var out []Window
	var w Window
	for i, d := range seq {
		if len(w.Tokens)+len(d.Tokens) > n+1 {
			out = append(out, w)
			w = Window{}
		}
		w.Tokens = append(w.Tokens, d.Tokens...)
		w.Targets = append(w.Targets, d.Targets...)
		if len(w.Tokens) < 2 && (i+1 == len(seq) || len(seq[i+1].Tokens)+1 > n+1) {
			return nil, newError("pack whole", fmt.Sprintf("document %d", i), detail(ErrInvalidArgument, "one token alone in a window: nothing to predict"))
		}
	}
	return append(out, w), nil
}

// packable checks docs for packing into windows of n+1 tokens and returns
// them with their separators and explicit targets.
func packable(op string, docs []Doc, n int, sep Token) ([]Doc, error) {
	if n < 1 {
		return nil, newError(op, "", detail(ErrInvalidArgument, "window of %d tokens", n))
	}
	if len(docs) == 0 {
		return nil, newError(op, "", detail(ErrInvalidArgument, "no documents"))
	}
	seq := make([]Doc, len(docs))
	for i, d := range docs {
		subject := fmt.Sprintf("document %d", i)
		if len(d.Tokens) == 0 {
			return nil, newError(op, subject, detail(ErrInvalidArgument, "empty document"))
		}
		if d.Targets != nil && len(d.Targets) != len(d.Tokens) {
			return nil, newError(op, subject, detail(ErrInvalidArgument, "%d targets for %d tokens", len(d.Targets), len(d.Tokens)))
		}
		toks, targets := d.Tokens[:len(d.Tokens):len(d.Tokens)], d.Targets
		if targets == nil {
			targets = make([]bool, len(toks))
			for j := range targets {
				targets[j] = true
			}
		}
		targets = targets[:len(targets):len(targets)]
		if sep >= 0 {
			toks = append(toks, sep)
			targets = append(targets, d.Targets == nil)
		}
		if len(toks) > n+1 {
			return nil, newError(op, subject, detail(ErrContextFull, "%d tokens do not fit a window of %d", len(toks), n+1))
		}
		seq[i] = Doc{toks, targets}
	}
	return seq, nil
}

// EpochProgress is reported after each window of an epoch.
type EpochProgress struct {
	Eval    bool    // the held-out windows, after the training ones
	Window  int     // windows done, from 1
	Windows int     // windows of this phase
	Loss    float64 // the window's loss (mean over its targets)
	Mean    float64 // the mean loss over the targets of this phase so far
}

// EpochStats is the mean loss over the targets of an epoch's windows.
type EpochStats struct {
	TrainLoss    float64
	TrainWindows int
	EvalLoss     float64 // 0 when there were no held-out windows
	EvalWindows  int
}

// Epoch trains on every window of train, in the order given, then
// evaluates every window of eval. Each loss is the mean over all the
// targets of the phase (a window weighs as many targets as it has).
// progress, when not nil, is called after each window. ctx is checked
// before each window; when it is cancelled, Epoch returns the stats of the
// windows done and an error wrapping ctx.Err(), and the weights are those
// after the last whole window.
func (t *Trainer) Epoch(ctx context.Context, train, eval []Window, progress func(EpochProgress)) (EpochStats, error) {
	var st EpochStats
	phases := []struct {
		eval    bool
		windows []Window
		loss    *float64
		n       *int
	}{{false, train, &st.TrainLoss, &st.TrainWindows}, {true, eval, &st.EvalLoss, &st.EvalWindows}}
	for _, ph := range phases {
		sum, targets := 0.0, 0
		for i, w := range ph.windows {
			run := t.Train
			if ph.eval {
				run = t.Eval
			}
			loss, err := run(ctx, w)
			if err != nil {
				return st, err
			}
			k := w.Positions()
			sum += loss * float64(k)
			targets += k
			*ph.n = i + 1
			if targets > 0 {
				*ph.loss = sum / float64(targets)
			}
			if progress != nil {
				progress(EpochProgress{Eval: ph.eval, Window: i + 1, Windows: len(ph.windows), Loss: loss, Mean: *ph.loss})
			}
		}
	}
	return st, nil
}
