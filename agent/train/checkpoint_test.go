package train

import (
	"context"
	"crypto/sha256"
	"encoding/json"
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

// resumeConfig is a small recipe that uses every piece of state a resume
// restores: a pretraining epoch (its own window order), a held-out chat,
// the cosine schedule, and the shared prefix reused for two steps.
var resumeConfig = Config{Window: 96, Epochs: 2, PretrainEpochs: 1, LearningRate: 1e-3, HeldOut: 0.2, Seed: 3,
	PrefixEvery: 2, Threads: 1}

// shortChats returns five short chats that share their system prompt.
func shortChats(t *testing.T) []Chat {
	t.Helper()
	const system = "You are a coding agent. Read the files you need, change them with care, run the tests, and say what you did in one line."
	var chats []Chat
	for i, qa := range [][2]string{
		{"What does main.go print?", "It prints hello."},
		{"Which test fails?", "TestParse fails on an empty line."},
		{"Rename Add to Sum.", "Done: Add is now Sum."},
		{"Is the build green?", "Yes, go build passes."},
		{"Fix the typo in README.", "Fixed: recieve is now receive."},
	} {
		msgs, err := json.Marshal([]map[string]string{{"role": "system", "content": system}, {"role": "user", "content": qa[0]}, {"role": "assistant", "content": qa[1]}})
		if err != nil {
			t.Fatal(err)
		}
		chats = append(chats, Chat{Messages: msgs, Path: "short", Line: i + 1})
	}
	return chats
}

// runTo trains base on chats by cfg, resuming from resume when it is not
// empty and stopping (as Ctrl-C does) after epoch stop when it is above 0.
// It returns the report, and the SHA-256 of the trained model when the
// run finished.
func runTo(t *testing.T, m *llama.Model, base string, chats []Chat, cfg Config, resume string, stop int) (Report, [32]byte, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, err := llama.NewTrainer(ctx, base, cfg.TrainParams())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	p, err := Prepare(m, chats, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if resume != "" {
		man, err := p.Resume(ctx, tr, resume)
		if err != nil {
			return Report{}, [32]byte{}, err
		}
		if man.Epoch != stop && stop > 0 {
			t.Errorf("Resume(%s) at epoch %d, want %d", resume, man.Epoch, stop)
		}
	}
	rep, err := p.Run(ctx, tr, Hooks{EpochEnd: func(e Epoch) {
		if e.Epoch == stop {
			cancel()
		}
	}})
	if err != nil {
		return rep, [32]byte{}, err
	}
	out := filepath.Join(t.TempDir(), "out.gguf")
	if err := tr.SaveFile(ctx, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return rep, sha256.Sum256(b), nil
}

// losses returns rep as JSON without the epochs' times: what must be the
// same, byte for byte, with and without a resume.
func losses(t *testing.T, rep Report) string {
	t.Helper()
	rep.Epochs = slices.Clone(rep.Epochs)
	for i := range rep.Epochs {
		rep.Epochs[i].Seconds = 0
	}
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResume trains two epochs uninterrupted, and two epochs stopped after
// the first (as Ctrl-C stops them) and resumed from its checkpoint: both
// save the same model, bit for bit, and report the same losses. Then it
// checks that bad checkpoints are refused, naming the file.
func TestResume(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	m := vocab(t)
	chats := shortChats(t)
	whole, stopped := filepath.Join(t.TempDir(), "whole"), filepath.Join(t.TempDir(), "stopped")

	cfg := resumeConfig
	cfg.Checkpoint = whole
	want, wantHash, err := runTo(t, m, base, chats, cfg, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Checkpoint = stopped
	if rep, _, err := runTo(t, m, base, chats, cfg, "", 1); !errors.Is(err, context.Canceled) || len(rep.Epochs) != 1 {
		t.Fatalf("a run stopped after epoch 1 = %d epochs, %v; want 1 and context.Canceled", len(rep.Epochs), err)
	}
	got, gotHash, err := runTo(t, m, base, chats, cfg, stopped, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(losses(t, want), losses(t, got)); diff != "" {
		t.Errorf("report after a resume (-uninterrupted +resumed):\n%s", diff)
	}
	if gotHash != wantHash {
		t.Errorf("the resumed run saved another model than the uninterrupted one")
	}
	var names []string
	entries, _ := os.ReadDir(stopped)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"epoch-0002-adamw.gguf", "epoch-0002-model.gguf", ManifestFile}, names); diff != "" {
		t.Errorf("the checkpoint folder after epoch 2 (-want +got):\n%s", diff)
	}
	t.Run("stop after", func(t *testing.T) {
		// StopAfter ends the run after epoch 1 of the 2-epoch schedule;
		// resumed without it, the run ends as the uninterrupted one.
		dir := filepath.Join(t.TempDir(), "ckpt")
		cfg := resumeConfig
		cfg.Checkpoint, cfg.StopAfter = dir, 1
		if rep, _, err := runTo(t, m, base, chats, cfg, "", 0); err != nil || len(rep.Epochs) != 1 {
			t.Fatalf("StopAfter 1: %d epochs, error %v; want 1 and none", len(rep.Epochs), err)
		}
		cfg.StopAfter = 0
		got, gotHash, err := runTo(t, m, base, chats, cfg, dir, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(losses(t, want), losses(t, got)); diff != "" || gotHash != wantHash {
			t.Errorf("resumed after StopAfter: the report (-uninterrupted +resumed):\n%s\nthe same model: %v", diff, gotHash == wantHash)
		}
	})
	t.Run("refused", func(t *testing.T) { testResumeRefused(t, m, base, chats, whole) })
}

// testResumeRefused resumes bad copies of the checkpoint in good, which
// resumes: each is refused before training with the error's sentinel,
// the file it names and the reason.
func testResumeRefused(t *testing.T, m *llama.Model, base string, chats []Chat, good string) {
	dir := t.TempDir()
	copyDir := func(name string, change func(dir string)) string {
		d := filepath.Join(dir, name)
		if err := os.CopyFS(d, os.DirFS(good)); err != nil {
			t.Fatal(err)
		}
		if change != nil {
			change(d)
		}
		return d
	}
	edit := func(name string, f func([]byte) []byte) func(string) {
		return func(d string) {
			p := filepath.Join(d, name)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cut := func(b []byte) []byte { return b[:len(b)/2] }
	flip := func(b []byte) []byte { b[len(b)-7] ^= 1; return b }
	// Another base: the same shapes, one weight changed.
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	otherBase := filepath.Join(dir, "other.gguf")
	if err := os.WriteFile(otherBase, flip(b), 0o644); err != nil {
		t.Fatal(err)
	}
	lr := resumeConfig
	lr.LearningRate = 2e-3
	tests := []struct {
		name  string
		dir   string
		base  string
		chats []Chat
		cfg   Config
		is    error
		path  string // the file the error names, in dir
		want  string
	}{
		{"missing folder", filepath.Join(dir, "missing"), base, chats, resumeConfig, fs.ErrNotExist, "missing", "no such folder"},
		{"empty folder", copyDir("empty", func(d string) { os.Remove(filepath.Join(d, ManifestFile)) }), base, chats, resumeConfig, fs.ErrNotExist, "empty", "no checkpoint here"},
		{"truncated weights", copyDir("cut-model", edit("epoch-0002-model.gguf", cut)), base, chats, resumeConfig, ErrCheckpoint, "cut-model/epoch-0002-model.gguf", "the file is truncated"},
		{"truncated optimizer", copyDir("cut-adamw", edit("epoch-0002-adamw.gguf", cut)), base, chats, resumeConfig, ErrCheckpoint, "cut-adamw/epoch-0002-adamw.gguf", "the file is truncated"},
		{"missing optimizer", copyDir("no-adamw", func(d string) { os.Remove(filepath.Join(d, "epoch-0002-adamw.gguf")) }), base, chats, resumeConfig, ErrCheckpoint, "no-adamw/epoch-0002-adamw.gguf", "cannot be read"},
		{"altered weights", copyDir("flipped", edit("epoch-0002-model.gguf", flip)), base, chats, resumeConfig, ErrCheckpoint, "flipped/epoch-0002-model.gguf", "altered"},
		{"truncated manifest", copyDir("cut-manifest", edit(ManifestFile, cut)), base, chats, resumeConfig, ErrCheckpoint, "cut-manifest/" + ManifestFile, "not a checkpoint's manifest"},
		{"another base model", good, otherBase, chats, resumeConfig, ErrCheckpoint, ManifestFile, "made from another base model"},
		{"another recipe", good, base, chats, lr, ErrCheckpoint, ManifestFile, "LearningRate 0.001 there, 0.002 here"},
		{"other chats", good, base, chats[1:], resumeConfig, ErrCheckpoint, ManifestFile, "made from other chats"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.path)
			if !strings.Contains(tt.path, "/") && tt.path != "missing" && tt.path != "empty" {
				path = filepath.Join(tt.dir, tt.path)
			}
			_, _, err := runTo(t, m, tt.base, tt.chats, tt.cfg, tt.dir, 0)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tt.is) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Resume(%s) = %v; want %v naming %s and %q", tt.dir, err, tt.is, path, tt.want)
			}
		})
	}
	// A new run may not checkpoint over another run's checkpoint.
	cfg := resumeConfig
	cfg.Checkpoint = good
	if rep, _, err := runTo(t, m, base, chats, cfg, "", 0); !errors.Is(err, ErrCheckpoint) || rep.Before != 0 ||
		!strings.Contains(err.Error(), "holds the checkpoint of another run (epoch 2 of 2)") {
		t.Errorf("a new run checkpointing into %s = %v (held-out loss before %v); want ErrCheckpoint before training", good, err, rep.Before)
	}
}
