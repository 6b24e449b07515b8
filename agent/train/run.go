package train

import (
	"context"
	"time"

	"github.com/loopagent/loop/llama"
)

// Report is what a run did, in the JSON that `loop train --json` prints.
type Report struct {
	Chats   int     `json:"chats"`                      // chats trained on
	HeldOut int     `json:"held_out_chats"`             // chats held out
	Tokens  int     `json:"tokens"`                     // tokens of all the chats
	Trained int     `json:"trained_tokens"`             // tokens trained: the assistant's, or all with TrainAll
	Window  int     `json:"window"`                     // Config.Window
	Prefix  int     `json:"shared_prefix"`              // tokens every window runs forward only; 0: none
	Forward int     `json:"prefix_tokens,omitempty"`    // tokens the windows run forward only, all together (Config.PrefixShare)
	Before  float64 `json:"eval_loss_before,omitempty"` // the held-out loss before training
	Epochs  []Epoch `json:"epochs"`                     // the epochs finished
}

// Epoch is one epoch's line of the report.
type Epoch struct {
	Epoch        int     `json:"epoch"` // from 1
	TrainLoss    float64 `json:"train_loss"`
	TrainWindows int     `json:"train_windows"`
	EvalLoss     float64 `json:"eval_loss,omitempty"`
	EvalWindows  int     `json:"eval_windows,omitempty"`
	AllTokens    bool    `json:"all_tokens,omitempty"` // trained on every token (Config.PretrainEpochs)
	Seconds      float64 `json:"seconds"`
}

// Progress is reported after each window of an epoch.
type Progress struct {
	Epoch int     // from 1
	Eval  bool    // a held-out window; they follow the training ones
	Done  int     // windows of the epoch done, training and held-out together
	Total int     // windows of the epoch
	Mean  float64 // the mean loss over the targets of this phase (training or held-out) so far
}

// Hooks are functions Run calls as it goes, from its own goroutine and in
// this order: BeforeTraining, then for each epoch EpochStart, Window after
// each window, and EpochEnd. A nil hook is skipped.
type Hooks struct {
	// BeforeTraining is given the held-out loss of the untrained model,
	// when there are held-out windows.
	BeforeTraining func(evalLoss float64)
	// EpochStart is called as an epoch starts, with its number from 1.
	EpochStart func(epoch int)
	// Window is called after each window.
	Window func(Progress)
	// EpochEnd is called after each epoch with its line of the report.
	EpochEnd func(Epoch)
}

// Run measures the held-out loss, then trains tr for the configured
// epochs on p's training windows, shuffled before each, the first
// PretrainEpochs on every token after the shared prefix, setting the
// learning rate of each step by the schedule, and measures the held-out
// loss after each epoch. tr is made with the Config's TrainParams. With
// Config.Checkpoint, a checkpoint is written after each epoch (a folder
// that holds another run's checkpoint is refused before training). After
// Resume, Run goes on from the epoch after the checkpoint's, with its
// report, and does not measure the loss before training again. With
// Config.StopAfter it ends after that epoch.
//
// ctx is checked before each window; when it is cancelled, Run returns the
// report of the epochs finished and an error wrapping ctx.Err(), and tr
// holds the weights after the last whole window. A checkpoint is written
// whole even when ctx is cancelled while it is written. Run does not save
// tr: call tr.SaveFile when it returns no error.
func (p *Plan) Run(ctx context.Context, tr *llama.Trainer, h Hooks) (Report, error) {
	rep := p.Report
	if err := p.claim(); err != nil {
		return rep, err
	}
	if len(p.Eval) > 0 && p.done == 0 {
		st, err := tr.Epoch(ctx, nil, p.Eval, nil)
		if err != nil {
			return rep, err
		}
		rep.Before = st.EvalLoss
		if h.BeforeTraining != nil {
			h.BeforeTraining(st.EvalLoss)
		}
	}
	last := p.cfg.Epochs
	if s := p.cfg.StopAfter; s > 0 {
		last = min(s, last)
	}
	for e := p.done + 1; e <= last; e++ {
		windows := p.order(e)
		if h.EpochStart != nil {
			h.EpochStart(e)
		}
		ep, err := p.epoch(ctx, tr, e, windows, h.Window)
		if err != nil {
			return rep, err
		}
		ep.AllTokens = e <= p.cfg.PretrainEpochs
		rep.Epochs = append(rep.Epochs, ep)
		if p.cfg.Checkpoint != "" {
			if err := p.save(context.WithoutCancel(ctx), tr, rep, e); err != nil {
				return rep, err
			}
		}
		if h.EpochEnd != nil {
			h.EpochEnd(ep)
		}
	}
	return rep, nil
}

// epoch trains on trainW and measures the held-out windows, setting the
// learning rate before each training window.
func (p *Plan) epoch(ctx context.Context, tr *llama.Trainer, e int, trainW []llama.Window, report func(Progress)) (Epoch, error) {
	start := time.Now()
	steps := len(trainW) * p.cfg.Epochs
	step := (e - 1) * len(trainW)
	if err := tr.SetLearningRate(p.cfg.rate(step, steps)); err != nil {
		return Epoch{}, err
	}
	var lrErr error
	total := len(trainW) + len(p.Eval)
	st, err := tr.Epoch(ctx, trainW, p.Eval, func(ep llama.EpochProgress) {
		if !ep.Eval && ep.Window < len(trainW) && lrErr == nil {
			lrErr = tr.SetLearningRate(p.cfg.rate(step+ep.Window, steps))
		}
		if report == nil {
			return
		}
		done := ep.Window
		if ep.Eval {
			done += len(trainW)
		}
		report(Progress{Epoch: e, Eval: ep.Eval, Done: done, Total: total, Mean: ep.Mean})
	})
	if err == nil {
		err = lrErr
	}
	return Epoch{Epoch: e, TrainLoss: st.TrainLoss, TrainWindows: st.TrainWindows, EvalLoss: st.EvalLoss,
		EvalWindows: st.EvalWindows, Seconds: time.Since(start).Seconds()}, err
}
