package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
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

// TestTrainTargets renders the first chat of the training data with the
// base's template and checks the tokens marked for training: two runs, the
// tool call and the answer, each ending with <|im_end|>, none reaching into
// a prompt.
func TestTrainTargets(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	m, err := llama.LoadModel(context.Background(), base, llama.ModelParams{VocabOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	chats, err := readTrainData(trainData)
	if err != nil {
		t.Fatal(err)
	}
	trained := func(c trainChat) []string {
		docs, err := renderChats(m, trainData, []trainChat{c}, 1024, false)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		var cur strings.Builder
		for i, tok := range docs[0].tokens {
			if docs[0].targets[i] {
				p, _ := m.TokenPiece(tok, true)
				cur.WriteString(p)
			} else if cur.Len() > 0 {
				runs = append(runs, cur.String())
				cur.Reset()
			}
		}
		if cur.Len() > 0 {
			runs = append(runs, cur.String())
		}
		return runs
	}
	call := "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call><|im_end|>"
	want := []string{call, "It prints hello.<|im_end|>"}
	if diff := cmp.Diff(want, trained(chats[0])); diff != "" {
		t.Errorf("trained text (-want +got):\n%s", diff)
	}
	// "weight": 0 on the call leaves only the answer trained.
	var msgs []map[string]any
	if err := json.Unmarshal(chats[0].Messages, &msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m["role"] == "assistant" && m["tool_calls"] != nil {
			m["weight"] = 0
		}
	}
	weighted := chats[0]
	weighted.Messages, _ = json.Marshal(msgs)
	if diff := cmp.Diff(want[1:], trained(weighted)); diff != "" {
		t.Errorf("trained text with the call's weight 0 (-want +got):\n%s", diff)
	}
	msgs[1]["weight"] = 0.5
	weighted.Messages, _ = json.Marshal(msgs)
	if _, err := renderChats(m, trainData, []trainChat{weighted}, 1024, false); err == nil || !strings.Contains(err.Error(), "weight 0.5") {
		t.Errorf("weight 0.5: %v, want an error naming it", err)
	}
}

// TestTrainRate: the cosine schedule warms up from a tenth of --lr over the
// first 5% of the steps, peaks at --lr, and ends at a tenth of it.
func TestTrainRate(t *testing.T) {
	f := trainFlags{lr: 1e-3, schedule: "cosine"}
	const steps = 100
	for _, tc := range []struct {
		step int
		want float64
	}{{0, 1e-4}, {5, 1e-3}, {52, 5.5e-4}, {99, 1e-4}} {
		if got := f.rate(tc.step, steps); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("rate(%d of %d) = %g, want %g", tc.step, steps, got, tc.want)
		}
	}
	for s := 6; s < steps; s++ {
		if f.rate(s, steps) > f.rate(s-1, steps) {
			t.Errorf("rate rises after the warm-up at step %d", s)
		}
	}
	f.schedule = "constant"
	if got := f.rate(50, steps); got != 1e-3 {
		t.Errorf("constant rate = %g, want 1e-3", got)
	}
}

// TestSharedPrefix checks the prefix every window runs forward only: the
// tokens all docs share, before any target, rounded down to 16.
func TestSharedPrefix(t *testing.T) {
	seq := func(n int, tail ...llama.Token) []llama.Token {
		s := make([]llama.Token, n)
		for i := range s {
			s[i] = llama.Token(i + 1)
		}
		return append(s, tail...)
	}
	targetsFrom := func(n, from int) []bool {
		b := make([]bool, n)
		for i := from; i < n; i++ {
			b[i] = true
		}
		return b
	}
	tests := []struct {
		name string
		docs []trainDoc
		want int
	}{
		{"shared 40, targets later", []trainDoc{
			{tokens: seq(40, 7, 8, 9, 10), targets: targetsFrom(44, 42)},
			{tokens: seq(40, 9, 9, 9, 9), targets: targetsFrom(44, 43)}}, 32},
		{"a target at 20 stops it at 19", []trainDoc{
			{tokens: seq(40, 7, 8), targets: targetsFrom(42, 20)},
			{tokens: seq(40, 9, 9), targets: targetsFrom(42, 41)}}, 16},
		{"different from the first token", []trainDoc{
			{tokens: seq(40), targets: targetsFrom(40, 39)},
			{tokens: append([]llama.Token{99}, seq(39)...), targets: targetsFrom(40, 39)}}, 0},
		{"a doc trained whole", []trainDoc{
			{tokens: seq(40), targets: targetsFrom(40, 39)},
			{tokens: seq(40)}}, 0},
		{"one doc: up to its first target", []trainDoc{{tokens: seq(100), targets: targetsFrom(100, 50)}}, 48},
	}
	for _, tt := range tests {
		if got := sharedPrefix(tt.docs); got != tt.want {
			t.Errorf("%s: sharedPrefix = %d, want %d", tt.name, got, tt.want)
		}
	}
}
