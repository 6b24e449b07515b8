package llama_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// stateWindows returns two windows of the last reply that share a prefix,
// and the window size that holds them.
func stateWindows(t *testing.T, path string) ([]llama.Window, int) {
	t.Helper()
	doc, n := lastReply(t, path)
	p := (slices.Index(doc.Targets, true) - 1) / 16 * 16
	k := len(doc.Tokens) - 4
	return []llama.Window{
		{Tokens: doc.Tokens, Targets: doc.Targets, Prefix: p},
		{Tokens: doc.Tokens[:k], Targets: doc.Targets[:k], Prefix: p},
	}, n
}

// trainSteps trains windows[i%2] for each learning rate and returns the
// losses.
func trainSteps(t *testing.T, tr *llama.Trainer, ws []llama.Window, rates ...float64) []float64 {
	t.Helper()
	var losses []float64
	for i, lr := range rates {
		if err := tr.SetLearningRate(lr); err != nil {
			t.Fatal(err)
		}
		loss, err := tr.Train(context.Background(), ws[i%2])
		if err != nil {
			t.Fatal(err)
		}
		losses = append(losses, loss)
	}
	return losses
}

// TestTrainerResume trains three steps, saves the weights and the
// optimizer, and trains three more; a new Trainer that loads both and
// trains the same three steps has the same losses and writes the same
// file, bit for bit. One that loads only the weights does not: AdamW's
// moments and step count are what make it exact. The windows share a
// prefix reused for two steps (PrefixEvery 2), so the cached prefix is
// part of the state too.
func TestTrainerResume(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	ws, n := stateWindows(t, path)
	params := llama.TrainParams{ContextSize: n, LearningRate: 1e-3, PrefixEvery: 2, Threads: 1}
	ctx := context.Background()
	dir := t.TempDir()
	weights, opt := filepath.Join(dir, "model.gguf"), filepath.Join(dir, "adamw.gguf")

	a := newTrainer(t, path, params)
	trainSteps(t, a, ws, 1e-3, 2e-3, 3e-3)
	if err := a.SaveFile(ctx, weights); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveOptimizer(ctx, opt); err != nil {
		t.Fatal(err)
	}
	want := trainSteps(t, a, ws, 2e-3, 1e-3, 5e-4)
	wantFile := saved(t, a, "a.gguf")

	resumed := func(loadOpt bool) ([]float64, []byte) {
		b := newTrainer(t, path, params)
		if err := b.LoadWeights(ctx, weights); err != nil {
			t.Fatal(err)
		}
		if loadOpt {
			if err := b.LoadOptimizer(ctx, opt); err != nil {
				t.Fatal(err)
			}
			if got := b.Steps(); got != 3 {
				t.Errorf("Steps after LoadOptimizer = %d, want 3", got)
			}
		}
		return trainSteps(t, b, ws, 2e-3, 1e-3, 5e-4), saved(t, b, "b.gguf")
	}
	got, gotFile := resumed(true)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("losses after a resume (-uninterrupted +resumed):\n%s", diff)
	}
	if !bytes.Equal(wantFile, gotFile) {
		t.Errorf("the resumed trainer saved another model than the uninterrupted one")
	}
	got, gotFile = resumed(false)
	if slices.Equal(want, got) || bytes.Equal(wantFile, gotFile) {
		t.Errorf("without the optimizer's state: losses %v, want them to differ from %v", got, want)
	}
}

// saved writes tr's weights to a file and returns its bytes.
func saved(t *testing.T, tr *llama.Trainer, name string) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := tr.SaveFile(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTrainerStateBadFiles checks that a missing, truncated or foreign
// state file is refused with a typed error that names it, and leaves the
// Trainer as it was.
func TestTrainerStateBadFiles(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	ws, n := stateWindows(t, path)
	ctx := context.Background()
	tr := newTrainer(t, path, llama.TrainParams{ContextSize: n, LearningRate: 1e-3})
	trainSteps(t, tr, ws, 1e-3)
	dir := t.TempDir()
	opt := filepath.Join(dir, "adamw.gguf")
	if err := tr.SaveOptimizer(ctx, opt); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("SaveOptimizer left %d files, want 1", len(entries))
	}
	full, err := os.ReadFile(opt)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cut := write("cut.gguf", full[:len(full)-1000])
	wd := newTrainer(t, path, llama.TrainParams{ContextSize: n, WeightDecay: 0.1})
	other := newTrainer(t, testmodels.Path(t, testmodels.TinyQwen15F32), llama.TrainParams{ContextSize: 64})
	tests := []struct {
		name string
		tr   *llama.Trainer
		load func(*llama.Trainer) func(context.Context, string) error
		file string
		is   error
		want string
	}{
		{"missing optimizer", tr, optimizer, filepath.Join(dir, "missing.gguf"), fs.ErrNotExist, "no such file"},
		{"missing weights", tr, weights, filepath.Join(dir, "missing.gguf"), fs.ErrNotExist, "no such file"},
		{"truncated optimizer", tr, optimizer, cut, llama.ErrNotGGUF, "truncated"},
		{"the header alone", tr, optimizer, write("head.gguf", full[:100]), llama.ErrNotGGUF, ""},
		{"a model as the optimizer", tr, optimizer, path, llama.ErrInvalidArgument, "not an optimizer state"},
		{"the optimizer as weights", tr, weights, opt, llama.ErrInvalidArgument, "a file of another model"},
		{"weights of another model", tr, weights, testmodels.Path(t, testmodels.TinyQwen15F32), llama.ErrInvalidArgument, "a file of another model"},
		{"optimizer of another model", other, optimizer, opt, llama.ErrInvalidArgument, "of another model"},
		{"another weight decay", wd, optimizer, opt, llama.ErrInvalidArgument, "weight decay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.load(tt.tr)(ctx, tt.file)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.file+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("load %s = %v; want %v naming the file and %q", tt.file, err, tt.is, tt.want)
			}
		})
	}
	if got := tr.Steps(); got != 1 {
		t.Errorf("Steps after the refused files = %d, want 1", got)
	}
	if err := tr.LoadOptimizer(ctx, opt); err != nil {
		t.Errorf("LoadOptimizer(the good file) after the refused ones: %v", err)
	}
	tr.Close()
	if err := tr.SaveOptimizer(ctx, opt); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("SaveOptimizer on a closed trainer = %v, want ErrClosed", err)
	}
}

func optimizer(tr *llama.Trainer) func(context.Context, string) error { return tr.LoadOptimizer }
func weights(tr *llama.Trainer) func(context.Context, string) error   { return tr.LoadWeights }
