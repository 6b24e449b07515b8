package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
)

// trainData is the hand-made chats of testdata/TestTrain: five with tools,
// calls and results, one without tools.
const trainData = "testdata/TestTrain/chats.jsonl"

// TestTrain trains two epochs on the hand-made chats and checks the report:
// the training loss falls and the output is written.
func TestTrain(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	out := filepath.Join(t.TempDir(), "out.gguf")
	code, stdout, stderr := runLoop(t, "train", "-m", base, "--data", trainData, "-o", out,
		"--epochs", "2", "--ctx", "512", "--lr", "1e-3", "-t", "2", "--val", "0.2", "--json")
	if code != 0 {
		t.Fatalf("loop train exited %d: %s", code, stderr)
	}
	var rep trainReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	if rep.Chats != 5 || rep.HeldOut != 1 || len(rep.Epochs) != 2 {
		t.Fatalf("report = %+v, want 5 training chats, 1 held out, 2 epochs", rep)
	}
	if e1, e2 := rep.Epochs[0], rep.Epochs[1]; e2.TrainLoss >= e1.TrainLoss || e1.EvalWindows != 1 {
		t.Errorf("epochs = %+v, want a lower training loss in epoch 2 and one held-out window", rep.Epochs)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("output: %v", err)
	}
	code, stdout, stderr = runLoop(t, "complete", "-m", out, "-c", "512", "-p", "<|im_start|>user\nhi<|im_end|>\n", "-n", "4", "--temp", "0")
	if code != 0 {
		t.Errorf("loop complete on the trained model exited %d: %s%s", code, stdout, stderr)
	}
}

// TestTrainPretrain trains one epoch on every token, then one on the
// assistant's: the report says which was which, and the held-out loss (the
// assistant's tokens in both) is below the untrained model's after each.
func TestTrainPretrain(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	out := filepath.Join(t.TempDir(), "out.gguf")
	code, stdout, stderr := runLoop(t, "train", "-m", base, "--data", trainData, "-o", out,
		"--epochs", "2", "--pretrain-epochs", "1", "--ctx", "512", "--lr", "1e-3", "-t", "2", "--val", "0.2", "--json")
	if code != 0 {
		t.Fatalf("loop train exited %d: %s", code, stderr)
	}
	var rep trainReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Epochs) != 2 {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	e1, e2 := rep.Epochs[0], rep.Epochs[1]
	if !e1.AllTokens || e2.AllTokens {
		t.Errorf("all_tokens = %v, %v; want true, false", e1.AllTokens, e2.AllTokens)
	}
	if !(e1.EvalLoss < rep.Before-0.05 && e2.EvalLoss < rep.Before-0.05) {
		t.Errorf("held-out loss %.4f, then %.4f and %.4f; want both below the first", rep.Before, e1.EvalLoss, e2.EvalLoss)
	}
}

// TestTrainDeterministic trains twice with one seed and once with another:
// the seed alone decides the shuffle and the split, so the first two files
// are the same bytes.
func TestTrainDeterministic(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	dir := t.TempDir()
	train := func(name, seed string) []byte {
		out := filepath.Join(dir, name)
		if code, _, stderr := runLoop(t, "train", "-m", base, "--data", trainData, "-o", out,
			"--ctx", "512", "--lr", "1e-3", "-t", "2", "--seed", seed); code != 0 {
			t.Fatalf("loop train --seed %s exited %d: %s", seed, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := train("a.gguf", "7"), train("b.gguf", "7"), train("c.gguf", "8")
	if !bytes.Equal(a, b) {
		t.Errorf("two runs with --seed 7 wrote different models")
	}
	if bytes.Equal(a, c) {
		t.Errorf("--seed 7 and --seed 8 wrote the same model")
	}
}

func TestTrainErrors(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "x.gguf") // never written
	long := `{"messages": [{"role": "user", "content": "` + strings.Repeat("word ", 700) + `"}]}`
	short := `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}`
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no output", []string{"-m", base, "--data", trainData}, 2, "no output"},
		{"window too small", []string{"-m", base, "--data", trainData, "-o", out, "--ctx", "8"}, 2, "16 or more"},
		{"window beyond the longest", []string{"-m", base, "--data", trainData, "-o", out, "--ctx", "40000"}, 1, "longer than 32768"},
		{"negative learning rate", []string{"-m", base, "--data", trainData, "-o", out, "--lr", "-1"}, 2, "--lr"},
		{"output over the base", []string{"-m", base, "--data", trainData, "-o", base}, 2, "is the base model"},
		{"more pretraining than epochs", []string{"-m", base, "--data", trainData, "-o", out, "--epochs", "2", "--pretrain-epochs", "3"}, 2, "--pretrain-epochs 3"},
		{"empty data", []string{"-m", base, "--data", write("empty.jsonl", "\n\n"), "-o", out}, 1, "no chats"},
		{"bad JSON names the line", []string{"-m", base, "--data", write("bad.jsonl", short+"\n{oops\n"), "-o", out}, 1, "bad.jsonl:2:"},
		{"chat longer than the window names the line", []string{"-m", base, "--data", write("long.jsonl", short+"\n\n"+long+"\n"), "-o", out, "--ctx", "512"}, 1, "long.jsonl:3: the chat is"},
		{"not qwen2", []string{"-m", testmodels.Path(t, testmodels.TinyLlama3Q8), "--data", trainData, "-o", filepath.Join(dir, "q.gguf")}, 1, "architecture llama: the training graph is qwen2's only"},
		{"F16 base", []string{"-m", testmodels.Path(t, testmodels.TinyQwen3F16), "--data", trainData, "-o", filepath.Join(dir, "h.gguf")}, 1, "is f16: the training graph trains F32 weights only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runLoop(t, append([]string{"train"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("loop train %s = exit %d, %q; want exit %d and %q", strings.Join(tt.args, " "), code, stderr, tt.code, tt.want)
			}
		})
	}
}

// TestTrainInterrupted runs train with a cancelled context, as after
// Ctrl-C: exit 130 and no output file.
func TestTrainInterrupted(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	out := filepath.Join(t.TempDir(), "out.gguf")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"train", "-m", base, "--data", trainData, "-o", out, "--ctx", "512"}, &stdout, &stderr)
	if code != 130 {
		t.Errorf("interrupted loop train exited %d, want 130: %s", code, stderr.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("interrupted loop train left %d files", len(entries))
	}
}
