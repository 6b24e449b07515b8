package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/train"
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
		{"prefix share above 1", []string{"-m", base, "--data", trainData, "-o", out, "--prefix-share", "1.5"}, 2, "--prefix-share 1.5"},
		{"stopping after the last epoch", []string{"-m", base, "--data", trainData, "-o", out, "--epochs", "2", "--stop-after", "3"}, 2, "--stop-after 3: want 0 to --epochs (2)"},
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

// shortChats writes five short chats that share their system prompt and
// returns the file.
func shortChats(t *testing.T) string {
	t.Helper()
	const system = "You are a coding agent. Read the files you need, change them with care, run the tests, and say what you did in one line."
	var b strings.Builder
	for _, qa := range [][2]string{
		{"What does main.go print?", "It prints hello."},
		{"Which test fails?", "TestParse fails on an empty line."},
		{"Rename Add to Sum.", "Done: Add is now Sum."},
		{"Is the build green?", "Yes, go build passes."},
		{"Fix the typo in README.", "Fixed: recieve is now receive."},
	} {
		line, err := json.Marshal(map[string]any{"messages": []map[string]string{
			{"role": "system", "content": system}, {"role": "user", "content": qa[0]}, {"role": "assistant", "content": qa[1]}}})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), "short.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cancelOn is an output that cancels a run once it has printed text, as
// Ctrl-C would at that moment.
type cancelOn struct {
	bytes.Buffer
	text   string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(b []byte) (int, error) {
	n, err := w.Buffer.Write(b)
	if strings.Contains(w.String(), w.text) {
		w.cancel()
	}
	return n, err
}

// TestTrainResume trains two epochs with --checkpoint, and two epochs
// stopped by Ctrl-C after the first and gone on with --resume: both write
// the same model and the same checkpoint, bit for bit, and the same
// losses. Then bad checkpoints are refused, each naming the file.
func TestTrainResume(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	data := shortChats(t)
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	args := func(extra ...string) []string {
		return append([]string{"train", "-m", base, "--data", data, "--epochs", "2", "--pretrain-epochs", "1",
			"--ctx", "96", "--lr", "1e-3", "-t", "1", "--val", "0.2", "--prefix-every", "2"}, extra...)
	}
	code, whole, stderr := runLoop(t, args("-o", file("a.gguf"), "--checkpoint", file("ck1"))...)
	if code != 0 {
		t.Fatalf("loop train --checkpoint exited %d: %s", code, stderr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := &cancelOn{text: "epoch 1/2:", cancel: cancel}
	var errOut bytes.Buffer
	if code := run(ctx, args("-o", file("b.gguf"), "--checkpoint", file("ck2")), stopped, &errOut); code != 130 ||
		!strings.Contains(errOut.String(), "interrupted in epoch 2") || !strings.Contains(errOut.String(), "--resume "+file("ck2")+" goes on after epoch 1") {
		t.Fatalf("loop train stopped in epoch 2 = exit %d, %q; want 130 and the --resume hint", code, errOut.String())
	}
	code, resumed, stderr := runLoop(t, args("-o", file("b.gguf"), "--resume", file("ck2"))...)
	if code != 0 || !strings.Contains(resumed, "resumed from "+file("ck2")+" at epoch 1\n") {
		t.Fatalf("loop train --resume = exit %d, %q, %s; want it resumed at epoch 1", code, resumed, stderr)
	}
	for _, pair := range [][2]string{{"a.gguf", "b.gguf"}, {"ck1/epoch-0002-model.gguf", "ck2/epoch-0002-model.gguf"},
		{"ck1/epoch-0002-adamw.gguf", "ck2/epoch-0002-adamw.gguf"}} {
		a, err1 := os.ReadFile(file(pair[0]))
		b, err2 := os.ReadFile(file(pair[1]))
		if err1 != nil || err2 != nil || sha256.Sum256(a) != sha256.Sum256(b) {
			t.Errorf("%s and %s differ (%v, %v): want the same bytes", pair[0], pair[1], err1, err2)
		}
	}
	if a, b := manifestLosses(t, file("ck1")), manifestLosses(t, file("ck2")); a != b {
		t.Errorf("losses in the manifests:\nuninterrupted %s\nresumed       %s", a, b)
	}
	if a, b := epochLine(whole, 2), epochLine(resumed, 2); a != b || a == "" {
		t.Errorf("epoch 2 printed %q uninterrupted, %q resumed", a, b)
	}

	cut := file("cut")
	if err := os.CopyFS(cut, os.DirFS(file("ck1"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(cut, "epoch-0002-adamw.gguf"), 1000); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-7] ^= 1
	other := file("other.gguf")
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing folder", args("-o", file("x.gguf"), "--resume", file("missing")), file("missing") + ": no such folder"},
		{"truncated file", args("-o", file("x.gguf"), "--resume", cut), filepath.Join(cut, "epoch-0002-adamw.gguf") + ": 1000 bytes, the manifest says"},
		{"another model", append(args("-o", file("x.gguf"), "--resume", file("ck1")), "-m", other), "made from another base model"},
		{"another learning rate", append(args("-o", file("x.gguf"), "--resume", file("ck1")), "--lr", "2e-3"), "LearningRate 0.001 there, 0.002 here"},
		{"a new run over a checkpoint", args("-o", file("x.gguf"), "--checkpoint", file("ck1")), file("ck1") + ": holds the checkpoint of another run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runLoop(t, tt.args...)
			if code != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("loop %s = exit %d, %q; want exit 1 and %q", strings.Join(tt.args, " "), code, stderr, tt.want)
			}
		})
	}
	if _, err := os.Stat(file("x.gguf")); err == nil {
		t.Errorf("a refused checkpoint wrote the output")
	}
}

// manifestLosses returns the report of the checkpoint in dir as JSON,
// without the epochs' times.
func manifestLosses(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, train.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m train.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for i := range m.Report.Epochs {
		m.Report.Epochs[i].Seconds = 0
	}
	out, err := json.Marshal(m.Report)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// epochLine returns the line loop train printed for epoch e, without its
// time.
func epochLine(stdout string, e int) string {
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, fmt.Sprintf("epoch %d/", e)) {
			line, _, _ = strings.Cut(line, " (")
			return line
		}
	}
	return ""
}
