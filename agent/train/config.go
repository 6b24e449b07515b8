package train

import (
	"fmt"
	"math"

	"github.com/loopagent/loop/llama"
)

// Config says how to train. The zero value trains one epoch on windows of
// 1024 tokens of whole chats, the assistant's tokens only, at a learning
// rate of 1e-4 on the cosine schedule, nothing held out, with the shared
// prefix run forward only and recomputed every step, on
// llama.DefaultThreads threads.
type Config struct {
	// Window is the positions of one datapoint in tokens. A chat and its
	// separator must fit one. It may exceed the base's trained context
	// (up to llama's limit of 32768). 0 means 1024.
	Window int `json:"window"`
	// Epochs is the number of passes over the training chats. 0 means 1.
	Epochs int `json:"epochs"`
	// PretrainEpochs is how many of the first epochs train on every token
	// of the chats after the shared prefix (the task, the code, the tool
	// results) rather than on the assistant's: the assistant's tokens are
	// a few percent of a chat, and the rest teaches JSON, code and
	// copying at little extra cost per window. The held-out loss stays
	// the assistant's. 0 means none; at most Epochs.
	PretrainEpochs int `json:"pretrain_epochs"`
	// LearningRate is AdamW's learning rate, the peak of the cosine
	// schedule. 0 means 1e-4.
	LearningRate float64 `json:"learning_rate"`
	// Schedule is how the learning rate moves over the steps of all the
	// epochs. "" means ScheduleCosine.
	Schedule Schedule `json:"schedule"`
	// Seed seeds the shuffle of the chats, which decides the held-out
	// split, and the shuffle of the windows before each epoch: one seed,
	// one trained model. Every value, 0 included, is a seed.
	Seed uint64 `json:"seed"`
	// HeldOut is the fraction of the chats held out to measure the loss
	// on, in [0, 1). When it is above 0, at least one chat is held out
	// (if there are two or more), and at least one always trains. 0 means
	// none.
	HeldOut float64 `json:"held_out"`
	// TrainAll trains every token of a chat, not only the assistant's. It
	// turns the shared prefix off: no token is left untrained.
	TrainAll bool `json:"train_all"`
	// Fill fills every window with the start of the next chat, as
	// llama.cpp's datasets do (llama.PackWindows), instead of packing
	// whole chats only (llama.PackWhole). Whole chats are the default
	// because the start of a chat cut at a window's end is its system
	// prompt and tools, which train nothing and cost attention.
	Fill bool `json:"fill"`
	// NoSharedPrefix trains through the tokens every chat starts with
	// (the system prompt and the tool schemas). By default they run
	// forward only, once per window (llama.Window.Prefix): no target lies
	// there, and skipping their backward pass makes an epoch cheaper; the
	// loss is the same, and only the gradient through their keys and
	// values is left out.
	NoSharedPrefix bool `json:"no_shared_prefix"`
	// PrefixEvery is how many optimizer steps the shared prefix's keys
	// and values serve before they are computed again
	// (llama.TrainParams.PrefixEvery): the windows in between attend to
	// keys and values up to PrefixEvery-1 steps old. 0 or 1 means every
	// step, which is exact.
	PrefixEvery int `json:"prefix_every"`
	// PrefixShare, when above 0, widens each window's forward-only prefix
	// from the tokens every chat shares to the longest start of its own
	// chat, before any target, that at least this share of the windows
	// begin with. Chats whose system prompt or tool list comes in a few
	// variants (an agent offers a question fewer tools than a task) then
	// run their whole variant forward only; a window whose prefix is not
	// the last window's computes its own (TrainParams.PrefixEvery reuses
	// only the last one). 0 means the prefix every chat shares; at most 1.
	PrefixShare float64 `json:"prefix_share,omitempty"`
	// Threads is the number of CPU threads the Trainer uses. 0 means
	// llama.DefaultThreads.
	Threads int `json:"threads"`
	// Checkpoint, when not empty, is a folder Run writes a checkpoint
	// into after each epoch: the weights, the optimizer's state and a
	// manifest (checkpoint.go), from which Plan.Resume goes on. A folder
	// that holds the checkpoint of another run is refused. It is not part
	// of the recipe that Resume compares, and neither is Threads.
	Checkpoint string `json:"-"`
	// StopAfter, when above 0, ends Run after that epoch of the
	// Epochs-long schedule. The learning rate follows the whole schedule,
	// so the weights are those a run of Epochs has after StopAfter of them,
	// and a resume from its checkpoint with a later StopAfter, or none,
	// goes on to the same end. Like Checkpoint, it is not part of the
	// recipe.
	StopAfter int `json:"-"`
}

// Schedule names a learning-rate schedule.
type Schedule string

const (
	// ScheduleCosine warms up linearly from a tenth of the learning rate
	// over the first 5% of the steps, then decays along a cosine to a
	// tenth of it at the last step: the warm-up keeps AdamW's first steps,
	// whose moment estimates are still poor, small, and the decay settles
	// the weights.
	ScheduleCosine Schedule = "cosine"
	// ScheduleConstant keeps the learning rate throughout.
	ScheduleConstant Schedule = "constant"
)

// The defaults of the zero Config.
const (
	DefaultWindow       = 1024
	DefaultLearningRate = 1e-4
)

// withDefaults returns c with its zero values replaced by the defaults.
func (c Config) withDefaults() Config {
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Epochs == 0 {
		c.Epochs = 1
	}
	if c.LearningRate == 0 {
		c.LearningRate = DefaultLearningRate
	}
	if c.Schedule == "" {
		c.Schedule = ScheduleCosine
	}
	c.PrefixEvery = max(c.PrefixEvery, 1)
	return c
}

// check refuses values out of range, naming the field.
func (c Config) check() error {
	var msg string
	switch {
	case c.Window < 0:
		msg = fmt.Sprintf("Window %d: want 0 (%d) or more", c.Window, DefaultWindow)
	case c.Epochs < 0:
		msg = fmt.Sprintf("Epochs %d: want 0 (1) or more", c.Epochs)
	case c.PretrainEpochs < 0 || c.PretrainEpochs > max(c.Epochs, 1):
		msg = fmt.Sprintf("PretrainEpochs %d: want 0 to Epochs (%d)", c.PretrainEpochs, max(c.Epochs, 1))
	case c.StopAfter < 0 || c.StopAfter > max(c.Epochs, 1):
		msg = fmt.Sprintf("StopAfter %d: want 0 to Epochs (%d)", c.StopAfter, max(c.Epochs, 1))
	case c.LearningRate < 0 || math.IsNaN(c.LearningRate) || math.IsInf(c.LearningRate, 0):
		msg = fmt.Sprintf("LearningRate %v: want 0 (%v) or a positive number", c.LearningRate, DefaultLearningRate)
	case c.Schedule != "" && c.Schedule != ScheduleCosine && c.Schedule != ScheduleConstant:
		msg = fmt.Sprintf("Schedule %q: want %q or %q", c.Schedule, ScheduleCosine, ScheduleConstant)
	case !(c.HeldOut >= 0 && c.HeldOut < 1):
		msg = fmt.Sprintf("HeldOut %v: want a fraction in [0, 1)", c.HeldOut)
	case !(c.PrefixShare >= 0 && c.PrefixShare <= 1):
		msg = fmt.Sprintf("PrefixShare %v: want a fraction in [0, 1]", c.PrefixShare)
	case c.PrefixEvery < 0:
		msg = fmt.Sprintf("PrefixEvery %d: want 0 (1) or more", c.PrefixEvery)
	case c.Threads < 0 || c.Threads > llama.MaxThreads:
		msg = fmt.Sprintf("Threads %d: want 0 (the default) to %d", c.Threads, llama.MaxThreads)
	default:
		return nil
	}
	return &Error{Op: "config", Err: &described{"config: " + msg, ErrConfig}}
}

// TrainParams returns the parameters of the llama.Trainer that Run needs:
// its window, learning rate, threads and prefix reuse. The window may
// pass the base's trained context.
func (c Config) TrainParams() llama.TrainParams {
	c = c.withDefaults()
	return llama.TrainParams{ContextSize: c.Window, AllowBeyondTrained: true,
		LearningRate: c.LearningRate, Threads: c.Threads, PrefixEvery: c.PrefixEvery}
}

// rate is the learning rate of step (from 0) of steps under c's schedule:
// the learning rate, or with the cosine schedule a linear warm-up from a
// tenth of it over the first 5% of the steps, then a cosine from it down
// to a tenth of it at the last. c has its defaults.
func (c Config) rate(step, steps int) float64 {
	lr := c.LearningRate
	if c.Schedule == ScheduleConstant || steps < 2 {
		return lr
	}
	low := lr / 10
	warm := max(1, steps/20)
	if step < warm {
		return low + (lr-low)*float64(step)/float64(warm)
	}
	x := float64(step-warm) / float64(max(1, steps-1-warm))
	return low + (lr-low)*(1+math.Cos(math.Pi*min(x, 1)))/2
}
