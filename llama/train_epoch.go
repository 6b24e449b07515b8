package llama

import (
	"context"
	"fmt"
)

// PackWindows packs documents (tokenized chats) into training windows of
// n+1 tokens, as llama.cpp's common_opt_dataset_init cuts one token stream,
// with one difference: every window starts at the start of a document, so
// that no window trains on the middle of a chat whose system prompt and
// tools it never saw. A window takes whole documents, each followed by sep
// when sep is not negative, and fills its end with the beginning of the
// next one, which then starts the next window; after the last document
// come the first ones again, so the last window is full too. Every token
// is trained at least once and the documents cut at a window's end twice.
//
// A document longer than a window is refused with ErrContextFull, in an
// *Error whose Subject is "document I" (I counting from 0).
func PackWindows(docs [][]Token, n int, sep Token) ([][]Token, error) {
	const op = "pack windows"
	if n < 1 {
		return nil, newError(op, "", detail(ErrInvalidArgument, "window of %d tokens", n))
	}
	if len(docs) == 0 {
		return nil, newError(op, "", detail(ErrInvalidArgument, "no documents"))
	}
	seq := make([][]Token, len(docs))
	for i, d := range docs {
		if len(d) == 0 {
			return nil, newError(op, fmt.Sprintf("document %d", i), detail(ErrInvalidArgument, "empty document"))
		}
		if sep >= 0 {
			d = append(d[:len(d):len(d)], sep)
		}
		if len(d) > n+1 {
			return nil, newError(op, fmt.Sprintf("document %d", i),
				detail(ErrContextFull, "%d tokens do not fit a window of %d", len(d), n+1))
		}
		seq[i] = d
	}
	var out [][]Token
	for i := 0; i < len(seq); {
		w := make([]Token, 0, n+1)
		j := i
		for len(w) < n+1 {
			d := seq[j%len(seq)]
			take := min(len(d), n+1-len(w))
			w = append(w, d[:take]...)
			if take < len(d) {
				break
			}
			j++
		}
		out = append(out, w)
		i = j
	}
	return out, nil
}

// EpochProgress is reported after each window of an epoch.
type EpochProgress struct {
	Eval    bool    // the held-out windows, after the training ones
	Window  int     // windows done, from 1
	Windows int     // windows of this phase
	Loss    float64 // the window's loss
	Mean    float64 // the mean loss of this phase so far
}

// EpochStats is the mean loss of an epoch's windows.
type EpochStats struct {
	TrainLoss    float64
	TrainWindows int
	EvalLoss     float64 // 0 when there were no held-out windows
	EvalWindows  int
}

// Epoch trains on every window of train, in the order given, then
// evaluates every window of eval. progress, when not nil, is called after
// each window. ctx is checked before each window; when it is cancelled,
// Epoch returns the stats of the windows done and an error wrapping
// ctx.Err(), and the weights are those after the last whole window.
func (t *Trainer) Epoch(ctx context.Context, train, eval [][]Token, progress func(EpochProgress)) (EpochStats, error) {
	var st EpochStats
	phases := []struct {
		eval    bool
		windows [][]Token
		loss    *float64
		n       *int
	}{{false, train, &st.TrainLoss, &st.TrainWindows}, {true, eval, &st.EvalLoss, &st.EvalWindows}}
	for _, ph := range phases {
		sum := 0.0
		for i, w := range ph.windows {
			run := t.Train
			if ph.eval {
				run = t.Eval
			}
			loss, err := run(ctx, w)
			if err != nil {
				return st, err
			}
			sum += loss
			*ph.n = i + 1
			*ph.loss = sum / float64(i+1)
			if progress != nil {
				progress(EpochProgress{Eval: ph.eval, Window: i + 1, Windows: len(ph.windows), Loss: loss, Mean: *ph.loss})
			}
		}
	}
	return st, nil
}
