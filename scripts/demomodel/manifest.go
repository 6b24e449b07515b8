package main

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loopagent/loop/agent/eval"
)

// Manifest is demo/manifest.json.
type Manifest struct {
	// Model is the model file, its size and SHA-256.
	Model File `json:"model"`
	// Suite is the SHA-256 of the held-out tasks (hashTree of demo/suite),
	// which the generator wrote beside the chats and no chat holds.
	Suite string `json:"suite_sha256"`
	// Recipe is the script that made the model (scripts/train-demo.sh),
	// verbatim: the commands, the flags and the generator's seeds.
	Recipe string `json:"recipe"`
	// Why says why the shape, the data and the epochs are what they are.
	Why string `json:"why"`
	// Commit is the repository's commit the recipe ran at, and Sources
	// the git tree ids at that commit of the directories whose code wrote
	// the chats and trained the model.
	Commit  string            `json:"commit,omitempty"`
	Sources map[string]string `json:"source_trees,omitempty"`
	// Seconds is the wall time of each stage of the recipe.
	Seconds map[string]float64 `json:"seconds,omitempty"`
	// Training is the last checkpoint's manifest (agent/train.Manifest)
	// as loop train wrote it, less the shuffle's state: the trainer's
	// recipe, the base model's and the chats' hashes, and the losses
	// (train and held-out) of every epoch.
	Training json.RawMessage `json:"training"`
	// Stages are the checkpoints' manifests of the training stages before
	// the last, in order, as Training: the weights of each are the base
	// of the next.
	Stages []json.RawMessage `json:"earlier_stages,omitempty"`
	// Growths are the models scripts/growmodel deepened between two
	// stages: From is the weights of a stage's last epoch, To the next
	// stage's base (the recipe holds the command, with its seed).
	Growths []Growth `json:"growths,omitempty"`
	// Eval is the evaluation of the model on the held-out suite, by name.
	Eval []Eval `json:"eval"`
	// EvalNote says why Eval was measured after the training (demomodel
	// reeval): empty when the recipe's own evaluation stands.
	EvalNote string `json:"eval_note,omitempty"`
}

// Eval is one `loop eval --json` run, without its per-run results.
type Eval struct {
	Name        string            `json:"name"`
	Suite       string            `json:"suite"`
	Seeds       int               `json:"seeds"`
	Scenarios   int               `json:"scenarios"`
	Summaries   []eval.Summary    `json:"summaries"`
	Comparisons []eval.Comparison `json:"comparisons"`
	// Groups are each configuration's pass rate on a part of the suite:
	// the tasks with a check (a bug to fix, a test to add), those in
	// the held-out workspace shapes, and each family.
	Groups []Group `json:"groups"`
}

// Growth is one model grown between two stages.
type Growth struct {
	From File `json:"from"`
	To   File `json:"to"`
}

// File is a file's name, size and SHA-256, as agent/train.File.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// training is what this command reads of a checkpoint's manifest
// (agent/train.Manifest; this package stays pure Go, so that go run
// builds it without llama.cpp).
type training struct {
	Epoch  int `json:"epoch"`
	Recipe struct {
		Epochs int `json:"epochs"`
	} `json:"recipe"`
	Base   File `json:"base"`
	Model  File `json:"model"`
	Report struct {
		Chats   int     `json:"chats"`
		HeldOut int     `json:"held_out_chats"`
		Before  float64 `json:"eval_loss_before"`
		Epochs  []struct {
			TrainLoss float64 `json:"train_loss"`
			EvalLoss  float64 `json:"eval_loss"`
			Seconds   float64 `json:"seconds"`
		} `json:"epochs"`
	} `json:"report"`
}

// training reads the checkpoint's manifest the manifest holds.
func (m *Manifest) training() (training, error) { return parseTraining(m.Training) }

// stages reads the checkpoints' manifests of every stage, the last one
// (Training) last.
func (m *Manifest) stages() ([]training, error) {
	var out []training
	for _, raw := range append(slices.Clip(m.Stages), m.Training) {
		t, err := parseTraining(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseTraining(raw json.RawMessage) (training, error) {
	var t training
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, fmt.Errorf("the training manifest: %w", err)
	}
	return t, nil
}

// Group is one configuration's pass rate on a part of the suite.
type Group struct {
	Group  string    `json:"group"`
	Config string    `json:"config"`
	Pass   eval.Rate `json:"pass"`
}

// heldTask is what a held-out task's task.json says of it.
type heldTask struct {
	Family       string `json:"family"`
	Shape        string `json:"shape"`
	HeldOutShape bool   `json:"held_out_shape"`
	Check        string `json:"check"`
}
